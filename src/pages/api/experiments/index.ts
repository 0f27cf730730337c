// GET /api/experiments — the catalogue: every experiment with its input, an example and the limits.
import type { APIRoute } from 'astro';
import { catalogue } from '../../../../server/experiments/http.ts';

export const prerender = false;

export const GET: APIRoute = () => catalogue();
