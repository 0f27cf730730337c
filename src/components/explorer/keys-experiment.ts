// keys: runs an enqueue on the sandbox and shows the keys it wrote, or the refusal and its proof.
import type { KeysResult } from '../../../server/experiments/keys.ts';
import { hashtag, slot } from '../../../server/keyspace/index.ts';
import { busy, defineExperiment, type ExplorerApi, show } from './explorer-api.ts';
import { wireView } from './wire-view.ts';
import { esc } from './escape.ts';
import { keyList, refusalText } from './explorer-view.ts';

/** For a brace in the name: the key the grammar would have built, and the hashtag a cluster would read from it. */
function wouldBe(queue: string, code: string): string {
  if (code !== 'BRACE') return '';
  const key = `emq:{${queue}}:pending`;
  const tag = hashtag(key);
  const moved =
    tag === queue
      ? ''
      : `, not on the name <code>${esc(queue)}</code>: its keys would land on slot ${slot(key)} instead of ${slot(queue)}`;
  return `<p class="xp-note" data-would-be>Had it been built, <code>${esc(key)}</code> would hash on <code>${esc(tag)}</code>${moved}.</p>`;
}

function proofText(proof: KeysResult['proof']): string {
  return `<p class="xp-proof" data-reached="${proof.reached}">Commands that reached the server during the run: <b>${proof.reached}</b> <span class="xp-hint">(its own count, CLIENT INFO tot-cmds; bytes received: ${proof.bytesReceived})</span></p>`;
}

export function wireKeys(section: HTMLElement, api: ExplorerApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  const compact = section.dataset.compact === 'true';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const id = String(data.get('id') ?? '').trim();
    const body = { queue: String(data.get('queue') ?? ''), ...(id ? { id } : {}) };
    void busy(form, async () => {
      const outcome = await api.run<KeysResult>('keys', body);
      if (!outcome.ok) return show(region, refusalText(outcome.code, outcome.message));
      const r = outcome.result;
      if (!r.accepted) {
        const what = r.refusal.code === 'BAD_ID' ? 'job id' : 'queue name';
        const who =
          r.refusal.by === 'host'
            ? `The host refused the ${what} before the wire.`
            : 'The server refused the call.';
        return show(
          region,
          `${refusalText(r.refusal.code, r.refusal.message)}<p>${who}</p>${wouldBe(r.queue, r.refusal.code)}${proofText(r.proof)}${wireView(r.wire, r.proof)}`,
        );
      }
      const live = r.live
        .map((k) => `<li><code>${esc(k.key)}</code> <span class="xp-hint">${esc(k.type)}</span></li>`)
        .join('');
      show(
        region,
        `<p class="xp-accepted"><span class="xp-badge is-ok">enqueued</span> job <code>${esc(r.id)}</code> on <code>${esc(r.queue)}</code></p>
${proofText(r.proof)}
${wireView(r.wire, r.proof)}
<p class="xp-note">What the server holds after the enqueue — the keys the grammar built, nothing else:</p>
<ul class="xp-live">${live}</ul>
<p class="xp-note">Every key of the queue:</p>
${keyList(r.keys, compact)}`,
      );
    });
  });
}

defineExperiment('emq-keys-experiment', wireKeys);
