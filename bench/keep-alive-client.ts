// A lean HTTP/1.1 client for load: one kept-alive socket per simulated reader, the request written as
// one buffer, the answer read by Content-Length (or in chunks, as the site sent it before the front
// wrote the API's answers whole) and
// decompressed and parsed as a page would. The bench shares the two cores with the site and the
// sandbox, so its own cost per request is kept far below the site's: node:http's client cost about
// 0.7 ms of CPU per request here, fetch about 2 ms.

import { connect, type Socket } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface Answer {
  status: number;
  body: unknown;
}

export class KeepAliveClient {
  private socket: Socket | null = null;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: { resolve(answer: Answer): void; reject(error: Error): void } | null = null;
  private readonly host: string;
  private readonly port: number;
  private readonly localAddress?: string;

  /** `localAddress`: the loopback address this reader sends from (an address of its own to the rate limit). */
  constructor(origin: string, localAddress?: string) {
    const url = new URL(origin);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.localAddress = localAddress;
  }

  /** POSTs `body` as JSON to `path`, asking for brotli or gzip; one request at a time per client. */
  post(path: string, body: string): Promise<Answer> {
    const payload = Buffer.from(body);
    const head =
      `POST ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\ncontent-type: application/json\r\n` +
      `accept-encoding: br, gzip\r\ncontent-length: ${payload.length}\r\n\r\n`;
    return new Promise<Answer>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.open().write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      localAddress: this.localAddress,
    });
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      this.parse();
    });
    const fail = (error: Error) => {
      this.socket = null;
      this.buffered = Buffer.alloc(0);
      const pending = this.pending;
      this.pending = null;
      pending?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the site closed the connection')));
    this.socket = socket;
    return socket;
  }

  private parse(): void {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0 || !this.pending) return;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const body = this.body(head, end + 4);
    if (!body) return;
    const [raw, rest] = body;
    this.buffered = rest;
    const encoding = /\r\ncontent-encoding: *(\S+)/i.exec(head)?.[1];
    const text = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
    const pending = this.pending;
    this.pending = null;
    pending.resolve({ status: Number(head.slice(9, 12)), body: JSON.parse(text.toString('utf8')) });
    if (/\r\nconnection: *close/i.test(head)) this.close();
  }

  /** The whole body after the head (by Content-Length, or chunked) and what follows it; null until it is all in. */
  private body(head: string, start: number): [Buffer, Buffer] | null {
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (length !== undefined) {
      const stop = start + Number(length);
      return this.buffered.length < stop
        ? null
        : [this.buffered.subarray(start, stop), this.buffered.subarray(stop)];
    }
    if (!/\r\ntransfer-encoding: *chunked/i.test(head)) {
      this.fail(new Error(`an answer with neither content-length nor chunks: ${head}`));
      return null;
    }
    const chunks: Buffer[] = [];
    for (let at = start; ;) {
      const line = this.buffered.indexOf('\r\n', at);
      if (line < 0) return null;
      const size = parseInt(this.buffered.subarray(at, line).toString('latin1'), 16);
      if (this.buffered.length < line + 2 + size + 2) return null;
      if (size === 0) return [Buffer.concat(chunks), this.buffered.subarray(line + 4)];
      chunks.push(this.buffered.subarray(line + 2, line + 2 + size));
      at = line + 2 + size + 2;
    }
  }

  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = null;
    this.close();
    pending?.reject(error);
  }
}
