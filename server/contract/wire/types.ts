// What a run's wire looks like to a reader: each command as redis-cli prints it with the server's reply,
// and the server's own counts of them. The recorder (server/wire/recorder.ts) builds these; the page
// prints them.

export type WireReply = string | number | null | WireReply[] | { error: string };

export interface WireCommand {
  /** The command as redis-cli prints it, exact in bytes. */
  line: string;
  reply: WireReply;
  /** The node (`host:port`) it went to, when a run spoke to a cluster. */
  node?: string;
}

export interface WireProof {
  /** Commands the server says it ran for this connection meanwhile (CLIENT INFO tot-cmds). */
  reached: number;
  /** Commands recorded here: `reached`, less the calls scripts made, plus the commands refused unrun. */
  listed: number;
  /** Bytes the server says it received on this connection meanwhile (CLIENT INFO tot-net-in). */
  bytesReceived: number;
  /** The RESP bytes of the commands recorded; equal to `bytesReceived` when nothing else was sent. */
  bytesListed: number;
}
