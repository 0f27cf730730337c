// GET /api/sandbox — whether the sandbox Valkey answers, for the explorer's status line.
import type { APIRoute } from 'astro';
import { methodNotAllowed, sandboxStatus } from '../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ request }) =>
  request.method === 'GET' || request.method === 'HEAD'
    ? sandboxStatus()
    : methodNotAllowed(request.method, 'GET, HEAD', 'GET here answers whether the sandbox is up');
