// The administrative install of the wire identity on a native node: an operator's step, run once per
// keyspace, never by a connector. It refuses to overwrite another identity unless told to.

import type { Valkey } from 'iovalkey';
import { versionKey, WIRE6_IDENTITY } from '../contract/keyspace/index.ts';

export interface InstallResult {
  identity: string;
  /** What the key held before: null when it was absent. */
  previous: string | null;
  changed: boolean;
}

export async function installWireIdentity(
  client: Valkey,
  options: { identity?: string; replace?: boolean } = {},
): Promise<InstallResult> {
  const identity = options.identity ?? WIRE6_IDENTITY;
  // SET … GET answers what was there; with NX it writes only into an absent key.
  const mode = options.replace ? [] : ['NX'];
  const previous = (await client.call('SET', versionKey(), identity, ...mode, 'GET')) as string | null;
  if (previous !== null && previous !== identity && !options.replace) {
    throw new Error(
      `${versionKey()} already holds ${JSON.stringify(previous)}, not ${JSON.stringify(identity)}; ` +
        'another wire speaks on this keyspace. Pass replace to overwrite it deliberately.',
    );
  }
  return { identity, previous, changed: previous !== identity };
}
