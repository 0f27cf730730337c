// Shared by the native module's tests: a sandbox that must have the module loaded, fresh databases
// with the wire identity installed or a foreign one claimed, the identity refusals, a keyspace digest, and an independent model of the layout check
// (docs/wire.md) that names the exact EMQKEY refusal a call must get — checked against the fixture's
// `layout` cases, so it cannot drift from the vectors the Rust tests read.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Valkey } from 'iovalkey';
import { catalogueText } from '../../server/contract/catalogue/catalogue-text.ts';
import { installWireIdentity } from '../../server/connectors/install.ts';
import {
  CORE_TRANSITIONS,
  TRANSITIONS,
  type Call,
  type CoreTransition,
} from '../../server/contract/transitions.ts';
import { quoteBytes, versionKey, WIRE4_IDENTITY } from '../../server/contract/keyspace/index.ts';
import { projectRoot } from '../../server/project-root.ts';
import type { SandboxOptions } from '../../server/sandbox/sandbox.ts';
import { useSandbox, type TestSandbox } from '../support/sandbox.ts';

/**
 * A sandbox whose standalone node has `trafikey` loaded. Opening a client fails loudly when the module
 * is not built (node:test runs root-level before() hooks concurrently, so the check lives here).
 */
export function useNativeSandbox(options: SandboxOptions = {}): TestSandbox {
  const box = useSandbox({
    ...options,
    // DEBUG DIGEST (a digest of the whole dataset) is how the mutation test sees "nothing written".
    standaloneSettings: { 'enable-debug-command': 'local', ...options.standaloneSettings },
  });
  const loaded = () =>
    assert.ok(
      box.sandbox.nativeModule,
      'native-module/target/release/libtrafikey.so is not built: ' +
        'cargo build --release --manifest-path native-module/Cargo.toml',
    );
  return {
    get sandbox() {
      return box.sandbox;
    },
    standalone(db) {
      loaded();
      return box.standalone(db);
    },
    nextDatabase() {
      loaded();
      return box.nextDatabase();
    },
    cluster() {
      return box.cluster();
    },
    clusterNode(index) {
      return box.clusterNode(index);
    },
  };
}

/** Empties a database and installs the native wire identity, as an operator would. */
export async function freshNative(client: Valkey): Promise<void> {
  await client.flushdb();
  await installWireIdentity(client);
}

export { serverMs } from '../support/sandbox.ts';

/** Puts the wire 4 identity at {emq}:version, as a wire 4 connector's claim leaves it: foreign to wire 6. */
export async function claimAsWire4(client: Valkey): Promise<void> {
  await client.set(versionKey(), WIRE4_IDENTITY);
}

/** The module's refusal where no identity is installed (its catalogue row). */
export const NOT_INSTALLED = catalogueText('EMQWIRE', {}, 'not-installed');
/** The module's refusal where a wire 4 connector claimed the keyspace (its catalogue row). */
export const FOREIGN = catalogueText('EMQWIRE', { value: WIRE4_IDENTITY }, 'foreign');

/** A digest of every key, type and value on the server (all databases): equal digests, equal data. */
export async function digest(client: Valkey): Promise<string> {
  return String(await client.call('DEBUG', 'DIGEST'));
}

// ---------------------------------------------------------------------------------------------------
// The verbs and their layouts, by the command name the fixture uses.

export const VERB_OF: Record<CoreTransition, string> = Object.fromEntries(
  CORE_TRANSITIONS.map((t) => [t, TRANSITIONS[t].command]),
) as Record<CoreTransition, string>;

export function transitionOf(verb: string): CoreTransition {
  const found = CORE_TRANSITIONS.find((t) => TRANSITIONS[t].command === verb.toUpperCase());
  if (!found) throw new Error(`no core transition for ${verb}`);
  return found;
}

/** Bytes as they go on the wire: a string is its UTF-8. */
export type Bytes = string | Buffer;

export function bytesOf(value: Bytes): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/**
 * A call whose keys may be raw bytes. iovalkey sends a Buffer argument as its bytes, which is how a
 * test puts a single byte such as 0xff (no UTF-8 string has it alone) into a key; `Call` types keys
 * as strings, so the cast is confined here.
 */
export function rawCall(transition: CoreTransition, keys: Bytes[], args: Bytes[]): Call {
  return { transition, keys: keys as unknown as string[], args: args as unknown as string[] };
}

/** The type suffix of each declared key, after `emq:{<name>}:`; `job:<id>` is `job:` + the id argument. */
function expectedTypes(transition: CoreTransition, args: Bytes[]): Buffer[] {
  return TRANSITIONS[transition].keys.map((type) =>
    type === 'job:<id>' ? Buffer.concat([Buffer.from('job:'), bytesOf(args[0] ?? '')]) : Buffer.from(type),
  );
}

/** The first offset where two byte strings differ; the shorter one's length when one is a prefix. */
export function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) if (a[i] !== b[i]) return i;
  return n;
}

const OPEN = Buffer.from('emq:{');

/**
 * The refusal docs/wire.md prescribes for a call's keys, or null when they pass: the key count, then
 * the layout — key 1 parsed, then keys 1…n compared byte for byte in order.
 */
export function expectedLayoutRefusal(
  transition: CoreTransition,
  keys: Bytes[],
  args: Bytes[],
): string | null {
  const types = expectedTypes(transition, args);
  if (keys.length !== types.length) {
    return `EMQKEY ${VERB_OF[transition]} expects ${types.length} keys but found ${keys.length}`;
  }
  const first = bytesOf(keys[0]!);
  const unparsed = (offset: number) =>
    `EMQKEY key 1 differs at byte ${offset}: expected ${quoteBytes(
      Buffer.concat([Buffer.from('emq:{<queue>}:'), types[0]!]),
    )} but found ${quoteBytes(first)}`;
  if (first.length < OPEN.length || !first.subarray(0, OPEN.length).equals(OPEN)) {
    return unparsed(firstDifference(first, OPEN));
  }
  const close = first.indexOf(0x7d, OPEN.length);
  if (close < 0) return unparsed(first.length);
  const name = first.subarray(OPEN.length, close);
  if (name.length === 0) {
    return "EMQKEY key 1 has an empty queue name at byte 5: expected at least one byte between '{' and '}'";
  }
  for (let i = 0; i < keys.length; i += 1) {
    const expected = Buffer.concat([OPEN, name, Buffer.from('}:'), types[i]!]);
    const found = bytesOf(keys[i]!);
    if (!found.equals(expected)) {
      return `EMQKEY key ${i + 1} differs at byte ${firstDifference(expected, found)}: expected ${quoteBytes(
        expected,
      )} but found ${quoteBytes(found)}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The shared vectors.

export interface LayoutCase {
  note: string;
  verb: string;
  keys: string[];
  args: string[];
  error: string | null;
  queue?: string;
}

export function layoutCases(): LayoutCase[] {
  const path = `${projectRoot()}/tests/fixtures/keyspace-vectors.json`;
  return (JSON.parse(readFileSync(path, 'utf8')) as { layout: LayoutCase[] }).layout;
}
