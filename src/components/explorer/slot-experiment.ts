// slot: hashtag, CRC16 and slot computed in the browser with the real keyspace module on every
// keystroke; the cluster node's CLUSTER KEYSLOT (and, for a queue, the CROSSSLOT call) a moment later.
import {
  crc16,
  hashtag,
  hashtagBytes,
  queueKey,
  queueSlot,
  reserveSlot,
  slot,
  versionKey,
} from '../../../server/contract/keyspace/index.ts';
import { crossSlotClaims, slotsOf } from '../../../server/contract/experiments/cross-slot.ts';
import { defineExperiment, type ExplorerApi } from './explorer-api.ts';
import { markup, show, type SafeHtml } from '../../lib/html.ts';
import { refusalText } from './refusal-text.ts';
import { crcText, crossSlot, queuePins } from './slot-view.ts';
import type { GridNode } from './slot-grid.ts';
import { readGrids, showGrid } from './slot-grid-reader.ts';
import { keyText } from './key-text.ts';
import { overCap, queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { LIMITS } from '../../../server/contract/limits.ts';

const DEBOUNCE_MS = 250;

/** The claim's keys before the cluster node answers; only for names queueRefusal let through. */
function waiting(queue: string, other: string): SafeHtml {
  const { single, mixed } = crossSlotClaims(queue, other);
  return crossSlot(slotsOf(single), slotsOf(mixed));
}

export function wireSlot(section: HTMLElement, api: ExplorerApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const field = (name: string) => section.querySelector<HTMLElement>(`[data-field="${name}"]`)!;
  const region = section.querySelector('[data-result]')!;
  // the slot map, redrawn whole in its place: read afresh each time
  const map = () => section.querySelector<HTMLElement>(':scope > [data-slot-grid]')!;
  const crossslot = section.querySelector<HTMLElement>('[data-crossslot]')!;
  const subject = form.elements.namedItem('subject') as HTMLInputElement;
  const other = form.elements.namedItem('other') as HTMLInputElement;
  const otherField = other.closest<HTMLElement>('.xp-field')!;
  const subjectLabel = form.querySelector<HTMLElement>(`label[for="${subject.id}"]`)!;
  const subjectCap = form.querySelector<HTMLElement>(`#${subject.id}-cap`)!;
  let timer: number | undefined;
  let asked = 0;
  // The owners as the map was first drawn (the sandbox's layout); a route run beside it reads them live.
  let nodes = JSON.parse(map().dataset.owners ?? '[]') as GridNode[];
  readGrids(section);

  const mode = () => (new FormData(form).get('mode') === 'key' ? 'key' : 'queue');

  const update = () => {
    const byKey = mode() === 'key';
    otherField.hidden = byKey;
    subjectLabel.textContent = byKey ? 'Any key' : 'Queue name';
    const cap = byKey ? LIMITS.keyBytes : LIMITS.queueBytes;
    subjectCap.textContent = `at most ${cap} bytes of UTF-8`;
    subject.dataset.maxBytes = String(cap);
    region.replaceChildren();
    let key = subject.value;
    crossslot.hidden = byKey;
    // A name the API or the host refuses is never sent: no answer is awaited for it.
    const refused = byKey
      ? overCap('key', subject.value, LIMITS.keyBytes)
      : (queueRefusal(subject.value) ?? queueRefusal(other.value));
    if (refused) show(region, queueRefusedView(refused));
    if (!byKey) {
      key = queueKey(subject.value, 'pending');
      show(crossslot, refused ? markup`` : waiting(subject.value, other.value));
    }
    const tag = hashtagBytes(key);
    const local = slot(key);
    show(field('key'), keyText(key));
    field('hashtag').textContent = hashtag(key);
    show(field('crc16'), crcText(crc16(tag)));
    field('slot').textContent = String(local);
    if (refused) {
      field('server-slot').textContent = '—';
      field('agree').textContent = 'not asked: the name is refused';
    } else {
      field('server-slot').textContent = '…';
      field('agree').textContent = 'asking the cluster node';
    }
    showGrid(map(), {
      nodes,
      marks: byKey
        ? [
            { slot: local, label: key, kind: 'queue' },
            { slot: reserveSlot(), label: versionKey(), kind: 'reserve' },
          ]
        : queuePins(subject.value, local, {
            name: other.value,
            slot: queueSlot(other.value),
          }),
    });
    window.clearTimeout(timer);
    asked += 1; // an answer still on its way is for an older name
    if (!refused) timer = window.setTimeout(() => void confirm(byKey, local), DEBOUNCE_MS);
  };

  const confirm = async (byKey: boolean, local: number) => {
    const ask = ++asked;
    const body = byKey ? { key: subject.value } : { queue: subject.value, other: other.value };
    const outcome = await api.run('slot', body);
    if (ask !== asked) return; // the reader typed on; a newer answer is coming
    if (!outcome.ok) {
      field('server-slot').textContent = '—';
      field('agree').textContent = 'no answer';
      show(region, refusalText(outcome.code, outcome.message));
      // nothing is coming for the claim either: say so instead of "waiting" for ever
      show(crossslot, markup`<p class="xp-note">The cluster node was not asked: ${outcome.code}.</p>`);
      return;
    }
    const r = outcome.result;
    if (r.accepted === false) {
      field('server-slot').textContent = '—';
      field('agree').textContent = 'not asked: the name is refused';
      show(region, refusalText(r.refusal.code, `${r.refusal.field}: ${r.refusal.message}`));
      crossslot.replaceChildren();
      return;
    }
    field('server-slot').textContent = String(r.key.serverSlot);
    field('agree').textContent = r.key.serverSlot === local ? 'the same slot' : 'they differ';
    if (r.accepted) show(crossslot, crossSlot(r.singleQueue, r.mixedQueues));
  };

  form.addEventListener('input', update);
  // back from an outage: ask the cluster node again
  const root = section.closest('[data-explorer]')!;
  root.addEventListener('explorer:up', update);
  root.addEventListener('explorer:layout', (event) => {
    nodes = (event as CustomEvent<GridNode[]>).detail;
    update();
  });
  form.addEventListener('submit', (event) => event.preventDefault());
}

defineExperiment('emq-slot-experiment', wireSlot);
