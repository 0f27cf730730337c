/** The markdown twin of every course page: `/index.md`, `/protocol/the-owned-keyspace.md`, … */
import type { APIRoute, GetStaticPaths } from 'astro';
import { coursePages, twinOf, twinText, type CoursePage } from '../lib/course.ts';

export const getStaticPaths = (async () => {
  const pages = await coursePages();
  return pages.map((page) => ({
    params: { twin: twinOf(page.data.route).replace(/^\/|\.md$/g, '') },
    props: { page, pages },
  }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { page, pages } = props as { page: CoursePage; pages: CoursePage[] };
  return new Response(twinText(page, pages), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
