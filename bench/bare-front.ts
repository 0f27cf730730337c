// The bare front of bench/front-cost.ts (started by it as its own process): node:http reading a POST's
// body, parsing it as JSON, and answering the site's own refusal bytes through our front's sendWhole.
// Run by front-cost.ts: BARE_ANSWER=<the JSON answer>

import { createServer } from 'node:http';
import { sendWhole } from '../server/front/compress.ts';

const answer = Buffer.from(process.env.BARE_ANSWER!);
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.once('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8')); // as any JSON API reads its input
    const headers = {
      'content-type': 'application/problem+json; charset=utf-8',
      'cache-control': 'no-store',
    };
    sendWhole(request, response, 400, headers, answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(typeof address === 'object' && address ? address.port : '');
});
process.once('SIGTERM', () => process.exit(0));
