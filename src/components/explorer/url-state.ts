// An experiment's inputs in the page's query string, so a reload keeps them and a link reproduces them:
// `?<name>.<field>=value`, written only while they differ from the defaults. Browser only.

export function readState(name: string): Record<string, string> | null {
  const params = new URLSearchParams(location.search);
  const state: Record<string, string> = {};
  for (const [key, value] of params)
    if (key.startsWith(`${name}.`)) state[key.slice(name.length + 1)] = value;
  return Object.keys(state).length ? state : null;
}

export function writeState(
  name: string,
  values: Record<string, string>,
  defaults: Record<string, string>,
): void {
  const url = new URL(location.href);
  for (const key of [...url.searchParams.keys()])
    if (key.startsWith(`${name}.`)) url.searchParams.delete(key);
  const changed = Object.entries(values).some(([field, value]) => value !== defaults[field]);
  if (changed)
    for (const [field, value] of Object.entries(values)) url.searchParams.set(`${name}.${field}`, value);
  if (url.href !== location.href) history.replaceState(history.state, '', url);
}

export function clearState(name: string): void {
  writeState(name, {}, {});
}
