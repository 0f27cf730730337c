/**
 * The site's public URL, `SITE_URL` (e.g. `https://keyspace.example.org`): one setting for everything
 * that must name the site absolutely — the canonical link and the link previews' tags of every page, the
 * sitemap, robots.txt's Sitemap line, llms.txt's links and the OpenAPI document's server. Read at build
 * time (astro.config.mjs's `site`); scripts/site.ts rebuilds when it changes. Unset, those are left out
 * or stay relative. Anything but an http(s) origin, with or without a trailing slash, ends the build
 * saying what was wrong.
 */
export function siteUrlFrom(env: Record<string, string | undefined>): string | undefined {
  const raw = env.SITE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `SITE_URL must be the site's public URL, such as https://keyspace.example.org, not ${raw}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`SITE_URL must start with http:// or https://, not ${url.protocol}//`);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw new Error(`SITE_URL must be an origin alone (the site is served at its root), not ${raw}`);
  return url.origin;
}

/** `path` (a route, `/a/b/`) as an absolute URL on the site, or as it is when no SITE_URL is set. */
export function onSite(site: string | URL | undefined, path: string): string {
  return site ? new URL(path, site).href : path;
}
