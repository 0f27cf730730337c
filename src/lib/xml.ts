/** Text as it may stand in XML character data or an attribute: &, <, >, " and ' escaped. */
export function xmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
