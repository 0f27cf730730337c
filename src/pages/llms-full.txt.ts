/** /llms-full.txt: the whole course as markdown, in reading order, then the EMQ.* arity table and
 * every error code (generated from server/catalogue/, the same tables GET /api/experiments returns);
 * every heading's anchor unique in the file (withUniqueAnchors). */
import type { APIRoute } from 'astro';
import { arityMarkdown, errorCodesMarkdown } from '../../server/contract/catalogue/markdown.ts';
import { coursePages, twinText } from '../lib/course.ts';
import { withUniqueAnchors } from '../lib/twin.ts';

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  const reference = `# Reference\n\n${arityMarkdown()}\n\n${errorCodesMarkdown()}\n`;
  // one file, so every anchor unique in it: each page's "References", "Live explorer"… named for its page
  const parts = withUniqueAnchors([
    ...pages.map((p) => ({ title: p.data.title, text: twinText(p, pages) })),
    { title: 'Reference', text: reference },
  ]);
  const text = parts.join('\n---\n\n');
  return new Response(text, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
