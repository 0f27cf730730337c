// The last bytes a child process wrote, kept to say why it would not start or why it died. Bounded
// however long it runs: a Valkey 9.1 node logs every slot migration, and the whole log kept as one
// growing string made the site's primary grow by about 1 MB a minute in an hour of reshards.

/** Keeps at most `limit` bytes of what `push` is given, dropping the oldest first. */
export class OutputTail {
  private readonly limit: number;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Whole chunks while the rest still holds `limit`; the cut inside one is made when read.
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit)
      this.size -= this.chunks.shift()!.length;
  }

  /** The kept bytes as text, at most `limit` of them (a character cut in two at the start is dropped). */
  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
  }
}
