/**
 * /sitemap.xml: every course page of the content collection, at its absolute URL. Written only when the
 * site's public URL is set (SITE_URL: a sitemap's locations must be absolute); robots.txt names it then.
 */
import type { APIRoute, GetStaticPaths } from 'astro';
import { coursePages } from '../lib/course.ts';
import { xmlText } from '../lib/xml.ts';

export const getStaticPaths = (() =>
  import.meta.env.SITE ? [{ params: { sitemap: 'sitemap' } }] : []) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ site }) => {
  const pages = await coursePages();
  const urls = pages.map((p) => `  <url><loc>${xmlText(new URL(p.data.route, site).href)}</loc></url>`);
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    '</urlset>',
    '',
  ].join('\n');
  return new Response(xml, { headers: { 'Content-Type': 'application/xml; charset=utf-8' } });
};
