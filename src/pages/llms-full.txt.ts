/** /llms-full.txt: the whole course as markdown, in reading order. */
import type { APIRoute } from 'astro';
import { coursePages, twinText } from '../lib/course.ts';

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  const text = pages.map((p) => twinText(p, pages)).join('\n---\n\n');
  return new Response(text, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
