// A run in flight on demand: its request line, headers and half its body sent now, the rest when the
// test says. The site has taken the request (a drain counts it) but cannot answer it yet.

import { request, type IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HalfSent {
  /** Sends the rest of the body; resolves with the answer (rejects if the connection is cut). */
  finish(): Promise<Reply>;
  /** The answer or the cut, without sending the rest. */
  reply: Promise<Reply>;
}

/**
 * A run whose headers and first half of its body are sent now, and the rest on `finish`: in flight (its
 * request taken by the site) from now until it is answered.
 */
export function halfSent(url: string, body: unknown): HalfSent {
  const bytes = Buffer.from(JSON.stringify(body));
  let resolveReply: (reply: Reply) => void;
  let rejectReply: (error: Error) => void;
  const reply = new Promise<Reply>((resolve, reject) => ((resolveReply = resolve), (rejectReply = reject)));
  const req = request(
    url,
    {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
    },
    (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolveReply({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    },
  );
  req.on('error', (error) => rejectReply(error));
  const half = Math.floor(bytes.length / 2);
  req.write(bytes.subarray(0, half));
  reply.catch(() => {});
  return {
    finish: () => {
      req.end(bytes.subarray(half));
      return reply;
    },
    reply,
  };
}
