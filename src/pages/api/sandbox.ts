// GET /api/sandbox — whether the sandbox Valkey answers, for the explorer's status line.
import type { APIRoute } from 'astro';
import { sandboxStatus } from '../../../server/experiments/http.ts';

export const prerender = false;

export const GET: APIRoute = () => sandboxStatus();
