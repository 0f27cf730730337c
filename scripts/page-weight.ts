// Prints each page's transferred bytes — HTML, CSS and JS — fetched from the built site served by
// its standalone server, with the gzip size beside each (what a compressing proxy would send). CSS is
// counted twice over: the stylesheets the page links (each one a render-blocking request) and the
// <style> elements inlined in its HTML (already inside the HTML bytes: no request of their own).
// Run: node scripts/page-weight.ts
import { gzipSync } from 'node:zlib';
import { COURSE_ROUTES, startSite } from './site.ts';

const site = await startSite();
try {
  const fetchBytes = async (path: string) =>
    Buffer.from(await (await fetch(new URL(path, site.url))).arrayBuffer());
  const rows: string[][] = [];
  // the not-found page too: it links the site's stylesheet like any other page
  for (const route of [...COURSE_ROUTES, '/404']) {
    const html = await fetchBytes(route);
    const text = html.toString('utf8');
    const css = [...text.matchAll(/<link[^>]+rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
    const js = [...text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
    const inlineCss = [...text.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => Buffer.from(m[1]!));
    const inlineJs = [...text.matchAll(/<script(?![^>]*src=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) =>
      Buffer.from(m[1]!),
    );
    const cssBytes = await Promise.all(css.map(fetchBytes));
    const jsBytes = await Promise.all(js.map(fetchBytes));
    const sum = (bs: Buffer[]) => bs.reduce((a, b) => a + b.length, 0);
    const gz = (bs: Buffer[]) => bs.reduce((a, b) => a + gzipSync(b).length, 0);
    rows.push([
      route,
      `${html.length} (${gzipSync(html).length} gz)`,
      `${css.length}: ${sum(cssBytes)} (${gz(cssBytes)} gz)`,
      `${inlineCss.length}: ${sum(inlineCss)}`,
      `${sum(jsBytes)} + ${sum(inlineJs)} inline`,
      `${html.length + sum(cssBytes) + sum(jsBytes)}`,
    ]);
  }
  const head = [
    'page',
    'HTML bytes',
    'linked CSS: files, bytes',
    '<style>: n, bytes',
    'JS bytes (in the HTML: inline)',
    'total',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
} finally {
  await site.close();
}
