/** /llms-full.txt: the whole course as markdown, in reading order, then the EMQ.* arity table and
 * every error code (generated from server/catalogue/, the same tables GET /api/experiments returns). */
import type { APIRoute } from 'astro';
import { arityMarkdown, errorCodesMarkdown } from '../../server/contract/catalogue/markdown.ts';
import { coursePages, twinText } from '../lib/course.ts';

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  const reference = `# Reference\n\n${arityMarkdown()}\n\n${errorCodesMarkdown()}\n`;
  const text = [...pages.map((p) => twinText(p, pages)), reference].join('\n---\n\n');
  return new Response(text, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
