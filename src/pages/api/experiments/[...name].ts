// POST /api/experiments/<name> — runs one experiment on the sandbox. The work is in server/experiments;
// the rate limit is the front's (server/front/), in front of every route that starts work.
import type { APIRoute } from 'astro';
import { handleExperiment } from '../../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ request, params }) => handleExperiment(request, params.name);
