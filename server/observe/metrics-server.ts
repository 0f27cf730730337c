// /metrics on a port of its own (METRICS_PORT, on METRICS_HOST: loopback unless the operator says
// otherwise), so the public port never shows them: with WORKERS=n the primary serves every worker's,
// summed (metrics.ts); with one process, that process serves its own.

import { createServer, type Server } from 'node:http';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics.ts';

export interface MetricsAt {
  host: string;
  port: number;
}

export async function serveMetrics(at: MetricsAt, workers: boolean): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      return void response.end('GET /metrics is the only route here\n');
    }
    metricsText(workers).then(
      (text) => {
        response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: Error) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`metrics could not be gathered: ${error.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  // Never keeps a draining process alive on its own.
  server.unref();
  return server;
}
