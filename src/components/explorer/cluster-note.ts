// What a degraded sandbox tells the reader beside the cluster experiments: the cluster check found
// something it could not repair (GET /api/sandbox's `problems`), said for someone meeting a cluster for
// the first time, with the check's own lines after it. Built with `markup`: a problem line quotes node
// addresses and keys, which are text, never markup.
import { markup, type SafeHtml } from '../../lib/html.ts';

export function degradedNote(problems: readonly string[]): SafeHtml {
  return markup`<div class="xp-degraded" data-cluster-degraded role="note"><p><b>The sandbox’s cluster is degraded.</b> Its three nodes no longer agree on where some keys live — usually a slot left half-moved from one node to another — and the site could not put it right by itself. The experiments below that run on the cluster may be refused until it is fixed; the standalone runs work as usual.</p><p>What the cluster check found:</p><ul>${problems.map((problem) => markup`<li>${problem}</li>`)}</ul></div>`;
}
