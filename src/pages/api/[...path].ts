// Anything else under /api/ answers in JSON too, never with the HTML 404 page.
import type { APIRoute } from 'astro';
import { refusal } from '../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ url }) =>
  refusal(404, 'NOT_FOUND', `no API at ${url.pathname}; see GET /api/experiments for what there is`);
