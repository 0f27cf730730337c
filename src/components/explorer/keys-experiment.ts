// keys: runs an enqueue on the sandbox and shows the keys it wrote, or the refusal and its proof.
import { defineExperiment, type ExperimentApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import { reachedView, wireView } from './wire-view.ts';
import { keyText } from './key-text.ts';
import { keyList } from './key-list.ts';
import { refusalText } from './refusal-text.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { typedKeys } from './typed-keys.ts';

export function wireKeys(section: HTMLElement, api: ExperimentApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  const typed = section.querySelector<HTMLElement>('[data-typed]')!;
  const compact = section.dataset.compact === 'true';
  // The keys follow the name as it is typed; a run's answer (which has them too) replaces them.
  form.addEventListener('input', () => {
    const data = new FormData(form);
    show(typed, typedKeys(String(data.get('queue') ?? ''), String(data.get('id') ?? '').trim(), compact));
    typed.hidden = false;
    region.replaceChildren();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const id = String(data.get('id') ?? '').trim();
    const body = { queue: String(data.get('queue') ?? ''), ...(id ? { id } : {}) };
    void (async () => {
      const outcome = await api.run('keys', body);
      typed.replaceChildren();
      typed.hidden = true;
      if (!outcome.ok) {
        // the API's byte cap: the same view as every experiment's for that name
        const refused = queueRefusal(body.queue);
        return show(
          region,
          refused?.code === outcome.code
            ? queueRefusedView(refused)
            : refusalText(outcome.code, outcome.message),
        );
      }
      const r = outcome.result;
      if (!r.accepted && r.refusal.code !== 'BAD_ID' && r.refusal.by === 'host')
        return show(region, queueRefusedView({ queue: r.queue, ...r.refusal }, r.proof));
      if (!r.accepted) {
        // a queue name the host refused was shown above: the host's refusal here is the job id's
        const who =
          r.refusal.by === 'host'
            ? 'The host refused the job id before the wire.'
            : 'The server refused the call.';
        return show(
          region,
          markup`${refusalText(r.refusal.code, r.refusal.message)}<p>${who}</p>${reachedView(r.proof)}${wireView(r.wire, r.proof)}`,
        );
      }
      const live = r.live.map(
        (k) => markup`<li>${keyText(k.key)} <span class="xp-hint">${k.type}</span></li>`,
      );
      show(
        region,
        markup`<p class="xp-accepted"><span class="xp-badge is-ok">enqueued</span> job <code>${r.id}</code> on <code>${r.queue}</code></p>
${reachedView(r.proof)}
${wireView(r.wire, r.proof)}
<p class="xp-note">What the server holds after the enqueue — the keys the grammar built, nothing else:</p>
<ul class="xp-live">${live}</ul>
<p class="xp-note">Every key of the queue:</p>
${keyList(r.keys, compact)}`,
      );
    })();
  });
}

defineExperiment('emq-keys-experiment', wireKeys);
