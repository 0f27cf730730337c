// The one state the module page's two part pickers share (the part picker's tabs and the explorer's
// views): the part the reader picked, said as an `emq:part` event on the document, with who said it,
// so that neither follows its own announcement.

export type PartPicker = 'picker' | 'explorer';

interface PartPicked {
  part: string;
  from: PartPicker;
}

/** Says which part the reader picked, so the page's other picker follows. */
export function announcePart(part: string, from: PartPicker): void {
  document.dispatchEvent(new CustomEvent<PartPicked>('emq:part', { detail: { part, from } }));
}

/** Calls `follow` with every part the other picker announces. */
export function followPart(self: PartPicker, follow: (part: string) => void): void {
  document.addEventListener('emq:part', (event) => {
    const { part, from } = (event as CustomEvent<PartPicked>).detail;
    if (from !== self) follow(part);
  });
}
