// What a degraded sandbox tells the reader beside the cluster experiments: the cluster check found
// something it could not repair (GET /api/sandbox's `problems`), said for someone meeting a cluster for
// the first time, with the check's own lines after it. Built with `markup`: a problem line quotes node
// addresses and keys, which are text, never markup.
import { markup, type SafeHtml } from '../../lib/html.ts';

export function degradedNote(problems: readonly string[]): SafeHtml {
  return markup`<div class="xp-degraded" data-cluster-degraded role="note"><p><b>The sandbox’s cluster is degraded.</b> Its check found something the site could not put right by itself: most often a slot whose move from one node to another was left half-done, else a node not answering, or nodes that disagree about which of them owns a slot. The experiments below that run on the cluster may be refused until it is fixed; the standalone runs work as usual.</p><p>What the cluster check found:</p><ul>${problems.map((problem) => markup`<li>${problem}</li>`)}</ul></div>`;
}
