// slot: hashtag, CRC16 and slot computed in the browser with the real keyspace module on every
// keystroke; the cluster node's CLUSTER KEYSLOT (and, for a queue, the CROSSSLOT call) a moment later.
import {
  crc16,
  hashtag,
  hashtagBytes,
  KeyspaceError,
  queueKey,
  slot,
  validQueue,
} from '../../../server/keyspace/index.ts';
import { callFor } from '../../../server/executors/calls.ts';
import type { ExplorerApi } from './explorer-api.ts';
import { crossSlot, queuePins, refusalText, slotMap, type SlotCall } from './explorer-view.ts';

interface SlotResult {
  accepted?: boolean;
  refusal?: { field: string; code: string; message: string };
  key: { key: string; slot: number; serverSlot: number; agree: boolean };
  otherSlot?: number;
  singleQueue?: SlotCall;
  mixedQueues?: SlotCall;
}

const DEBOUNCE_MS = 250;

/** The claim's keys before the cluster node answers (nothing when a name is refused). */
function waiting(queue: string, other: string): string {
  try {
    const single = callFor('claim', queue, { lease_ms: 1000 }).keys;
    const mixed = [single[0]!, callFor('claim', other, { lease_ms: 1000 }).keys[1]!, single[2]!];
    return crossSlot(
      { keys: single, slots: single.map((k) => slot(k)) },
      { keys: mixed, slots: mixed.map((k) => slot(k)) },
    );
  } catch (error) {
    if (error instanceof KeyspaceError) return '';
    throw error;
  }
}
const hex = (n: number) => `0x${n.toString(16).toUpperCase().padStart(4, '0')}`;

export function wireSlot(section: HTMLElement, api: ExplorerApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const field = (name: string) => section.querySelector<HTMLElement>(`[data-field="${name}"]`)!;
  const region = section.querySelector('[data-result]')!;
  const map = section.querySelector('[data-map]')!;
  const crossslot = section.querySelector<HTMLElement>('[data-crossslot]')!;
  const subject = form.elements.namedItem('subject') as HTMLInputElement;
  const other = form.elements.namedItem('other') as HTMLInputElement;
  const otherField = section.querySelector<HTMLElement>('[data-other-field]')!;
  const subjectLabel = section.querySelector<HTMLElement>('[data-subject-label]')!;
  let timer: number | undefined;
  let asked = 0;

  const mode = () => (new FormData(form).get('mode') === 'key' ? 'key' : 'queue');

  const update = () => {
    const byKey = mode() === 'key';
    otherField.hidden = byKey;
    subjectLabel.textContent = byKey ? 'Any key' : 'Queue name';
    region.innerHTML = '';
    let key = subject.value;
    crossslot.hidden = byKey;
    if (!byKey) {
      try {
        validQueue(subject.value);
        validQueue(other.value);
      } catch (error) {
        if (!(error instanceof KeyspaceError)) throw error;
        region.innerHTML = refusalText(error.code, `${error.message} (checked in your browser)`);
      }
      key = queueKey(subject.value, 'pending');
      crossslot.innerHTML = waiting(subject.value, other.value);
    }
    const tag = hashtagBytes(key);
    const local = slot(key);
    field('key').textContent = key;
    field('hashtag').textContent = hashtag(key);
    field('crc16').textContent = hex(crc16(tag));
    field('crc16-dec').textContent = String(crc16(tag));
    field('slot').textContent = String(local);
    field('server-slot').textContent = '…';
    field('agree').textContent = 'asking the cluster node';
    map.innerHTML = slotMap(
      byKey
        ? [
            { slot: local, label: key, kind: 'queue' },
            { slot: 9051, label: '{emq}:version', kind: 'reserve' },
          ]
        : queuePins(subject.value, local, {
            name: other.value,
            slot: slot(queueKey(other.value, 'pending')),
          }),
    );
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void confirm(byKey, local), DEBOUNCE_MS);
  };

  const confirm = async (byKey: boolean, local: number) => {
    const ask = ++asked;
    const body = byKey ? { key: subject.value } : { queue: subject.value, other: other.value };
    const outcome = await api.run<SlotResult>('slot', body);
    if (ask !== asked) return; // the reader typed on; a newer answer is coming
    if (!outcome.ok) {
      field('server-slot').textContent = '—';
      field('agree').textContent = 'no answer';
      region.innerHTML = refusalText(outcome.code, outcome.message);
      return;
    }
    const r = outcome.result;
    if (r.accepted === false) {
      field('server-slot').textContent = '—';
      field('agree').textContent = 'not asked: the name is refused';
      region.innerHTML = refusalText(r.refusal!.code, `${r.refusal!.field}: ${r.refusal!.message}`);
      crossslot.innerHTML = '';
      return;
    }
    field('server-slot').textContent = String(r.key.serverSlot);
    field('agree').textContent = r.key.serverSlot === local ? 'the same slot' : 'they differ';
    if (r.singleQueue && r.mixedQueues) crossslot.innerHTML = crossSlot(r.singleQueue, r.mixedQueues);
  };

  form.addEventListener('input', update);
  // back from an outage: ask the cluster node again
  section.closest('[data-explorer]')!.addEventListener('explorer:up', update);
  form.addEventListener('submit', (event) => event.preventDefault());
}
