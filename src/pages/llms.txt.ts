/** /llms.txt: the course's map per llmstxt.org. The committed top-level llms.txt is this file. */
import type { APIRoute } from 'astro';
import { coursePages } from '../lib/course.ts';
import { llmsTxt } from '../lib/llms.ts';

export const GET: APIRoute = async () => {
  const pages = await coursePages();
  return new Response(llmsTxt(pages.map((p) => p.data)), {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
};
