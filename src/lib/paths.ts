/** The markdown twin of a route: `/` → `/index.md`, `/a/b/` → `/a/b.md`. */
export function twinOf(route: string): string {
  return route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md';
}

/** The link-preview image of a route, made at build time (scripts/preview-images.ts): `/` → `/og/index.png`. */
export function previewImageOf(route: string): string {
  const name = route.replace(/^\/|\/$/g, '').replace(/\//g, '-') || 'index';
  return `/og/${name}.png`;
}
