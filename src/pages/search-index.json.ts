/** The search index: one entry per section of every page, from the pages' markdown twins. */
import type { APIRoute } from 'astro';
import { render } from 'astro:content';
import { coursePages, twinText } from '../lib/course.ts';
import { plainText, sections } from '../lib/twin.ts';

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  const entries = [];
  for (const p of pages) {
    const { headings } = await render(p);
    // headings the page really renders: the MDX ones and the two closing sections
    const slugs = new Set([...headings.map((h) => h.slug), 'references', 'related-in-this-course']);
    entries.push(
      ...sections(twinText(p, pages)).map((s) => ({
        page: p.data.title,
        heading: s.heading === p.data.title ? '' : s.heading,
        url: slugs.has(s.slug) ? `${p.data.route}#${s.slug}` : p.data.route,
        text: plainText(s.text).slice(0, 600),
      })),
    );
  }
  return new Response(JSON.stringify(entries), { headers: { 'Content-Type': 'application/json' } });
};
