// native layout check: keeps the key fields on the exact call of the chosen verb and queue (built in
// the browser by the same calls the server uses), offers presets, and marks the byte EMQKEY names.
import { CORE_TRANSITIONS, TRANSITIONS, type CoreTransition } from '../../../server/contract/transitions.ts';
import { isOneOf } from '../../../server/contract/one-of.ts';
import { exactCall } from '../../../server/contract/exact-call.ts';
import { KeyspaceError } from '../../../server/contract/keyspace/index.ts';
import { defineExperiment, type ExperimentApi } from './explorer-api.ts';
import { markup, show, type SafeHtml } from '../../lib/html.ts';
import type { LayoutVerdict } from '../../../server/contract/experiments/layout.ts';
import type { WireCommand, WireProof } from '../../../server/contract/wire/types.ts';
import { overCap, queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { LIMITS } from '../../../server/contract/limits.ts';
import { markedKey } from './marked-key.ts';
import { refusalText } from './refusal-text.ts';
import { cliReply, wireView } from './wire-view.ts';
import type { ProbeReply } from '../../../server/contract/experiments/migration.ts';
import { answeredBy, checkOrder } from './check-order.ts';
import { replyBadge } from './reply-badge.ts';

/** A node's verdict as the layout experiment returns it, with the commands that node received. */
type Verdict = LayoutVerdict & { wire?: WireCommand[]; proof?: WireProof | null };

function verdictText(v: Verdict, keys: string[], cluster: boolean): SafeHtml {
  if (v.accepted)
    return markup`${checkOrder([answeredBy(v.reply as ProbeReply)], { cluster })}<p class="xp-accepted">${replyBadge(v.reply as ProbeReply)} the server replied <code>${cliReply(v.reply as ProbeReply)}</code></p>${wireView(v.wire, v.proof, 'Commands sent')}`;
  const reply = { error: v.error };
  const marked =
    !!v.position &&
    markup`<p class="xp-note">Key ${v.position} as you sent it, byte ${String(v.offset)} marked:</p><p class="xp-marked" data-position="${v.position}">${markedKey(keys[v.position - 1] ?? '', v.offset ?? null)}</p>${
      v.expected && markup`<p class="xp-note">The key the server rebuilt: <code>${v.expected}</code></p>`
    }`;
  const unchanged =
    v.keyspaceUnchanged !== undefined &&
    markup`<p class="xp-note" data-unchanged="${String(v.keyspaceUnchanged)}">${v.keyspaceUnchanged ? 'The keyspace is unchanged: the refusal wrote nothing.' : 'The keyspace changed.'}</p>`;
  return markup`${checkOrder([answeredBy(reply)], { cluster })}<p class="xp-refused">${replyBadge(reply)} <code>${cliReply(reply)}</code></p>${marked}${unchanged}${wireView(v.wire, v.proof, 'Commands sent')}`;
}

export function wireLayout(section: HTMLElement, api: ExperimentApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  const holder = section.querySelector<HTMLElement>('[data-keys]')!;
  const verb = form.elements.namedItem('verb') as HTMLSelectElement;
  const queue = form.elements.namedItem('queue') as HTMLInputElement;
  const callLabel = section.querySelector<HTMLElement>('[data-call-label]')!;
  const id = section.dataset.id!;
  const inputs = () => [...holder.querySelectorAll<HTMLInputElement>('input')];

  /** The exact call's keys, or the admission refusal the browser found. */
  const exact = (name = queue.value): string[] | KeyspaceError => {
    try {
      return exactCall(verb.value as CoreTransition, name, id).call.keys;
    } catch (error) {
      if (error instanceof KeyspaceError) return error;
      throw error;
    }
  };

  const fill = (keys: string[]) => {
    show(
      holder,
      markup`${keys.map(
        (key, i) =>
          markup`<p class="xp-field"><label for="xp-layout-key-${i + 1}">Key ${i + 1}</label><input id="xp-layout-key-${i + 1}" name="key" value="${key}" autocomplete="off" spellcheck="false" class="xp-mono" data-max-bytes="${LIMITS.keyBytes}" /></p>`,
      )}`,
    );
  };

  const reset = () => {
    callLabel.textContent = `Call ${TRANSITIONS[verb.value as CoreTransition].command}`;
    const keys = exact();
    const refused =
      queueRefusal(queue.value) ??
      (keys instanceof KeyspaceError ? { queue: queue.value, code: keys.code, message: keys.message } : null);
    if (refused || keys instanceof KeyspaceError) {
      show(region, queueRefusedView(refused!));
      return;
    }
    fill(keys);
  };

  verb.addEventListener('change', reset);
  queue.addEventListener('input', reset);

  for (const button of section.querySelectorAll<HTMLButtonElement>('[data-preset]')) {
    button.addEventListener('click', () => {
      const keys = exact();
      if (keys instanceof KeyspaceError) return;
      if (button.dataset.preset === 'exact') fill(keys);
      if (button.dataset.preset === 'empty') fill(keys.map((key) => key.replace(`{${queue.value}}`, '{}')));
      if (button.dataset.preset === 'byte') {
        // the last byte of the queue name in the last key: orders → orderz
        const at = keys.length - 1;
        const key = keys[at]!;
        const close = key.indexOf('}');
        const old = key[close - 1]!;
        keys[at] = key.slice(0, close - 1) + (old === 'z' ? 'y' : 'z') + key.slice(close);
        fill(keys);
      }
      inputs()[0]?.focus();
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const keys = inputs().map((input) => input.value);
    const refused = queueRefusal(queue.value);
    if (refused) return show(region, queueRefusedView(refused));
    // a key over the API's cap is refused here, in the API's words, and never sent
    const long = keys.map((key, i) => overCap(`keys[${i}]`, key, LIMITS.keyBytes)).find(Boolean);
    if (long) return show(region, refusalText(long.code, long.message));
    void (async () => {
      const outcome = await api.run('layout', {
        verb: isOneOf(CORE_TRANSITIONS, verb.value) ? verb.value : undefined,
        queue: queue.value,
        id,
        keys,
      });
      if (!outcome.ok) return show(region, refusalText(outcome.code, outcome.message));
      const r = outcome.result;
      if (!r.available) return show(region, markup`<p>${r.message}</p>`);
      show(
        region,
        markup`<div class="xp-sides">
  <div data-node="standalone"><p class="xp-side-name">standalone node (native module)</p>${verdictText(r.standalone, r.keys, false)}</div>
  <div data-node="cluster"><p class="xp-side-name">the three-node cluster, the same call</p>${verdictText(r.cluster, r.keys, true)}</div>
</div>`,
      );
    })();
  });
}

defineExperiment('emq-layout-experiment', wireLayout);
