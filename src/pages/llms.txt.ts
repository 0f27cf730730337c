/** /llms.txt: the course's map per llmstxt.org, its links absolute when SITE_URL is set. The committed
 * top-level llms.txt is this file as built without it. */
import type { APIRoute } from 'astro';
import { coursePages } from '../lib/course.ts';
import { llmsTxt } from '../lib/llms.ts';

export const GET: APIRoute = async ({ site }) => {
  const pages = await coursePages();
  return new Response(
    llmsTxt(
      pages.map((p) => p.data),
      site,
    ),
    {
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    },
  );
};
