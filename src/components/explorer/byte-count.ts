// The live "n / cap bytes" beside every capped field (CappedField.astro): counted as UTF-8, as the API
// counts, so 'é' is 2. One listener on the document, since the island's fields arrive after this script.
// Only crossing the cap is announced (a polite status, silent while under it), and nothing is refused
// here: the field still sends and the API says why it refuses, in its own words.
import { utf8 } from '../../../server/contract/keyspace/bytes.ts';

function recount(input: HTMLInputElement): void {
  const field = input.closest('.xp-field');
  const count = field?.querySelector<HTMLElement>('[data-byte-count]');
  if (!field || !count) return;
  const cap = Number(input.dataset.maxBytes);
  const bytes = utf8(input.value).length;
  const over = bytes > cap;
  count.textContent = `${bytes} / ${cap} bytes${over ? ', over the cap' : ''}`;
  const wasOver = count.dataset.over === 'true';
  count.dataset.over = String(over);
  if (over === wasOver) return;
  const alert = field.querySelector<HTMLElement>('[data-byte-alert]')!;
  alert.textContent = over
    ? `${input.labels?.[0]?.textContent ?? 'This field'} is ${bytes} bytes, over its cap of ${cap}.`
    : '';
}

document.addEventListener('input', (event) => {
  const input = event.target;
  if (input instanceof HTMLInputElement && input.dataset.maxBytes) recount(input);
});

// A choice may change a field's cap (the slot experiment's "by key" allows a key's bytes): recount the
// form's fields after its own listeners have set the new cap.
document.addEventListener('change', (event) => {
  const form = (event.target as Element | null)?.closest?.('form');
  for (const input of form?.querySelectorAll<HTMLInputElement>('input[data-max-bytes]') ?? []) recount(input);
});
