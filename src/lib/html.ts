// Markup that escapes by default. markup`<p>${text}</p>` escapes every value it is given unless that
// value is SafeHtml, and SafeHtml comes only from this tag or from trusted() (constant markup, said out
// loud where it is used): a forgotten call can no longer let a queue name become an element. Arrays
// render item by item; null, undefined and false render nothing. Attribute values must be quoted (the
// quotes are escaped, so a value cannot close its attribute). Free of Node and DOM APIs: the server and
// the browser build the same markup with it. The tag is not called `html` because Prettier reformats
// every template so tagged as HTML, which would change the whitespace the page shows.

declare const brand: unique symbol;

/** Markup this module vouches for; a plain object of the same shape is not one (see `made`). */
export interface SafeHtml {
  readonly html: string;
  readonly [brand]: true;
}

// The brand at run time: only objects made here are in it, so a look-alike (from JSON, say) is escaped.
const made = new WeakSet<object>();

function safe(html: string): SafeHtml {
  const value = Object.freeze({ html }) as SafeHtml;
  made.add(value);
  return value;
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function part(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(part).join('');
  return made.has(value as object)
    ? (value as SafeHtml).html
    : String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** The tag: the template's own text is markup, every interpolation is text unless it is SafeHtml. */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  // called as a plain function with a made-up array, the "template" would be markup nobody wrote
  if (!strings.raw) throw new TypeError('markup is a template tag: write markup`…`');
  return safe(strings.reduce((out, text, i) => out + part(values[i - 1]) + text));
}

/** Items joined by a separator (each text unless SafeHtml), e.g. a key with a break after each ':'. */
export function joined(items: unknown[], separator: unknown): SafeHtml {
  return safe(items.map(part).join(part(separator)));
}

/** Constant markup written in source. Never pass it anything a reader or a server sent. */
export function trusted(constant: string): SafeHtml {
  return safe(constant);
}

/** The browser's way in: only SafeHtml reaches innerHTML. */
export function show(into: { innerHTML: string }, content: SafeHtml): void {
  into.innerHTML = content.html;
}

/** The same way in for an element redrawn whole, in its own place: only SafeHtml reaches outerHTML. */
export function showInstead(element: { outerHTML: string }, content: SafeHtml): void {
  element.outerHTML = content.html;
}
