/** The markdown twin of a route: `/` → `/index.md`, `/a/b/` → `/a/b.md`. */
export function twinOf(route: string): string {
  return route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md';
}
