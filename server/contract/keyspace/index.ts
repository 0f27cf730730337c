// The host keyspace: every key EchoMQ writes is built by these functions. Free of Node APIs, so the
// browser computes keys and slots with the very same code.

export { validQueue } from './admission.ts';
export {
  assertBrandedId,
  describeId,
  formatId,
  IdMinter,
  isBrandedId,
  mintJobId,
  parseId,
  type BrandedId,
} from './branded-id.ts';
export { quoteBytes, utf8 } from './bytes.ts';
export { KeyspaceError, type KeyspaceErrorCode } from './errors.ts';
export {
  jobKey,
  laneKey,
  layoutValueType,
  namespacePattern,
  PREFIX,
  queueKey,
  queueKeys,
  queuePattern,
  queuePrefix,
  queueSlot,
  reservePattern,
  rowBase,
  splitQueueKey,
  type QueueKeyParts,
} from './grammar.ts';
export { crc16, hashtag, hashtagBytes, hashtagRange, slot, SLOT_COUNT } from './hashtag.ts';
export { RESERVE_BASE, reserve, reserveSlot, versionKey, WIRE4_IDENTITY, WIRE6_IDENTITY } from './reserve.ts';
export {
  isFixedKeyType,
  KEY_TYPES,
  type FixedKeyType,
  type KeyType,
  type LaneKeyType,
  type ValueType,
} from './types.ts';
