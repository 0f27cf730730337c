// Whether a server answers at all, the one reading behind `emq_server_up` and the runtime's health.

import type { Valkey } from 'iovalkey';
import { HEALTH_PING_MS } from '../settings/bounds.ts';

/** Whether `client` answers a PING within HEALTH_PING_MS. */
export function answersPing(client: Valkey): Promise<boolean> {
  return Promise.race([
    client.ping().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(false), HEALTH_PING_MS)),
  ]);
}
