// The part of a section a search result shows: about `width` characters around the first place the
// word occurs, widened to whole words, so a snippet never starts or ends inside a word.

/** `text` around the first `word` (lower case), whole words only, with … where text was left out. */
export function snippet(text: string, word: string, width = 140): string {
  const at = Math.max(0, text.toLowerCase().indexOf(word));
  // A little text before the match, so it is read in context, and most of the width after it.
  let from = Math.max(0, at - Math.min(40, Math.floor(width / 3)));
  let to = Math.min(text.length, from + width);
  // Widen to the edges of the words cut: back to the space before `from`, on to the space after `to`.
  if (from > 0) from = text.lastIndexOf(' ', from) + 1;
  if (to < text.length) {
    const space = text.indexOf(' ', to);
    to = space < 0 ? text.length : space;
  }
  const body = text.slice(from, to).trim();
  return (from > 0 ? '… ' : '') + body + (to < text.length ? ' …' : '');
}
