/**
 * /robots.txt: every course page may be crawled; the server islands (each render runs experiments on the
 * sandbox) and the API's runs may not. With the site's public URL set, it names the sitemap.
 */
import type { APIRoute } from 'astro';

export const GET: APIRoute = ({ site }) => {
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /_server-islands/', 'Disallow: /api/experiments/'];
  if (site) lines.push('', `Sitemap: ${new URL('/sitemap.xml', site).href}`);
  return new Response(lines.join('\n') + '\n', { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
