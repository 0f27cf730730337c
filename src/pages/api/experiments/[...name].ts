// POST /api/experiments/<name> — runs one experiment on the sandbox. The work is in server/experiments.
import type { APIRoute } from 'astro';
import { handleExperiment } from '../../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ request, params, clientAddress }) =>
  handleExperiment(request, params.name, clientAddress);
