/**
 * The search index: one entry per section of every page, from the pages' markdown twins, each with its
 * whole text (a section cut short could not be found by its later words), and one entry per glossary
 * term, wherever a page defines it (`<dfn id="glossary-…">`), linking to its definition.
 */
import type { APIRoute } from 'astro';
import { render } from 'astro:content';
import { coursePages, twinText } from '../lib/course.ts';
import { plainText, sections } from '../lib/twin.ts';

/** `- <dfn id="glossary-slot">Slot</dfn>: definition…`, up to the next item or the end of the section. */
const TERM = /(?:^|\s)- <dfn id="(glossary-[\w-]+)">([^<]+)<\/dfn>:\s*(.*?)(?=\s- <dfn |$)/g;

/** The text as a reader sees it: the twin's markup and its HTML tags left out (never `<type>`, a placeholder). */
const readable = (markdown: string) =>
  plainText(markdown.replace(/<\/?(?:dfn|abbr|a|span|br|kbd|strong|em)\b[^>]*>/g, ''));

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  const entries = [];
  for (const p of pages) {
    const { headings } = await render(p);
    // headings the page really renders: the MDX ones and the two closing sections
    const slugs = new Set([...headings.map((h) => h.slug), 'references', 'related-in-this-course']);
    for (const s of sections(twinText(p, pages))) {
      entries.push({
        page: p.data.title,
        heading: s.heading === p.data.title ? '' : s.heading,
        url: slugs.has(s.slug) ? `${p.data.route}#${s.slug}` : p.data.route,
        text: readable(s.text),
      });
      for (const [, id, term, definition] of s.text.matchAll(TERM)) {
        entries.push({
          page: p.data.title,
          heading: `Glossary: ${term}`,
          url: `${p.data.route}#${id}`,
          text: readable(definition!),
        });
      }
    }
  }
  return new Response(JSON.stringify(entries), { headers: { 'Content-Type': 'application/json' } });
};
