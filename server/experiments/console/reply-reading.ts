// A reply read in one line, where redis-cli's own print leaves a newcomer guessing: `(nil)` after
// `SET … NX` means the key was there and nothing was written; `(empty array)` means there is no such
// key. Only replies whose meaning is certain from the command alone get a reading. Free of Node APIs.

import { hashtag, versionKey } from '../../contract/keyspace/index.ts';
import type { WireReply } from '../../wire/recorder.ts';
import type { Planned } from '../../contract/console/allow-list.ts';
import { formsFor, structureOf } from '../../contract/console/key-forms.ts';

const decoder = new TextDecoder();
const text = (bytes: Uint8Array | undefined) => (bytes ? decoder.decode(bytes) : '');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function setReading(planned: Planned, reply: WireReply): string | undefined {
  const options = planned.argv.slice(3).map((a) => text(a).toUpperCase());
  const key = versionKey();
  if (options.includes('GET'))
    return reply === null
      ? `${key} was absent, so NX wrote the value; the (nil) is the old value GET returns: there was none`
      : `${key} already held this value, so NX wrote nothing`;
  return reply === null
    ? `${key} already held a value, so NX wrote nothing; GET ${key} shows it`
    : `${key} was absent and now holds ${text(planned.argv[2])}`;
}

function emptyReading(key: string): string {
  const structure = structureOf(key);
  return `there is no such key here${structure ? ` (Valkey removes ${structure} once it is empty)` : ''}`;
}

/** One line of plain words for a reply, or undefined when the reply says it plainly enough. */
export function replyReading(planned: Planned, reply: WireReply): string | undefined {
  const key = text(planned.keys[0]);
  const count = typeof reply === 'number' ? reply : NaN;
  switch (planned.command) {
    case 'SET':
      return setReading(planned, reply);
    case 'GET':
    case 'HGET':
    case 'ZSCORE':
      if (reply !== null) return undefined;
      return planned.command === 'GET'
        ? 'there is no such key here'
        : planned.command === 'HGET'
          ? 'the hash has no such field, or there is no such key'
          : 'the sorted set has no such member, or there is no such key';
    case 'HGETALL':
    case 'SMEMBERS':
      return Array.isArray(reply) && reply.length === 0 ? emptyReading(key) : undefined;
    case 'ZRANGE':
    case 'LRANGE':
      return Array.isArray(reply) && reply.length === 0
        ? `nothing in that range, or ${emptyReading(key)}`
        : undefined;
    case 'TYPE':
      return reply === 'none' ? 'there is no such key here' : undefined;
    case 'TTL':
      return count === -1
        ? 'the key exists and never expires'
        : count === -2
          ? 'there is no such key here'
          : undefined;
    case 'EXISTS':
      return `${count} of the ${plural(planned.keys.length, 'key')} named exist (a key named twice counts twice)`;
    case 'DEL':
      return `${plural(count, 'key')} existed and ${count === 1 ? 'is' : 'are'} now deleted; the rest were not there`;
    case 'HSET':
      return `${plural(count, 'new field')}; a field already there is overwritten and not counted`;
    case 'ZADD':
      return `${plural(count, 'new member')} (with CH, changed ones count too)`;
    case 'DBSIZE':
      return `${plural(count, 'key')} in this run's own keyspace`;
    case 'CLUSTER KEYSLOT':
      return `CRC16 of the hashed bytes "${hashtag(key)}", modulo 16384`;
  }
  return undefined;
}

/** One line for an error whose fix is a different command: WRONGTYPE names the commands that fit the key. */
export function errorReading(planned: Planned, code: string): string | undefined {
  if (code !== 'WRONGTYPE') return undefined;
  const key = text(planned.keys[0]);
  const forms = formsFor(key);
  return forms
    ? `${key} is ${structureOf(key)}: read it with ${forms.read}`
    : `the key holds another kind of value than ${planned.command} reads; TYPE ${key} says which`;
}
