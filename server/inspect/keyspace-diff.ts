// What one step changed in a keyspace: each key added, removed or changed, with its value before and
// after, in byte order. The page shows a step as this diff, not as the whole keyspace again.

import type { KeyChange, KeyspaceDump } from '../contract/dump.ts';

export function diffKeyspaces(before: KeyspaceDump, after: KeyspaceDump): KeyChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: KeyChange[] = [];
  for (const key of keys) {
    const [was, is] = [before[key], after[key]];
    if (!was) changes.push({ key, change: 'added', after: is! });
    else if (!is) changes.push({ key, change: 'removed', before: was });
    else if (JSON.stringify(was) !== JSON.stringify(is))
      changes.push({ key, change: 'changed', before: was, after: is });
  }
  return changes;
}
