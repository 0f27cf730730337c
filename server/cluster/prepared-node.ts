// An admin connection that prepares its server on every (re)connect, e.g. after a restart: the
// explorer's account (`prepare`, explorer/explorer-user.ts), then the project's scripts (the account
// may not load them itself). The standalone node and every node of both clusters are kept so.

import type { Valkey } from 'iovalkey';
import { loadScripts } from '../executors/scripted.ts';
import { StartRefusedError } from '../sandbox/standalone-offer.ts';

/** Installs the explorer's account through an admin connection; answers whether trafikey is loaded. */
export type Prepare = (admin: Valkey) => Promise<boolean>;

export interface PreparedNode {
  admin: Valkey;
  /** `host:port`, for the log and the metrics. */
  address: string;
  /** Settles with the first preparation (whether trafikey is loaded), or fails with the first refusal. */
  prepared: Promise<boolean>;
  /** Whether the account and the scripts are in place on the connection as it is now. */
  ready(): boolean;
  lastError(): string;
}

export function preparedNode(admin: Valkey, address: string, prepare: Prepare): PreparedNode {
  let lastError = 'no answer yet';
  admin.on('error', (error: Error) => (lastError = error.message));
  let current = false;
  let settle: { resolve(native: boolean): void; reject(error: Error): void } | null = null;
  const prepared = new Promise<boolean>((resolve, reject) => (settle = { resolve, reject }));
  prepared.catch(() => {});
  const install = () => {
    void prepare(admin)
      .then(async (native) => {
        await loadScripts(admin);
        current = admin.status === 'ready';
        settle?.resolve(native);
      })
      .catch((error: Error) => {
        lastError = error.message;
        if (/^NOPERM|^ERR unknown command/.test(error.message)) {
          settle?.reject(
            new StartRefusedError(
              `the admin user of ${address} may not create the explorer's account (${error.message}); it needs ACL SETUSER, MODULE LIST and SCRIPT LOAD`,
            ),
          );
        }
        // Anything else (the server went away meanwhile): the next `ready` tries again.
      });
  };
  admin.on('ready', install);
  // Already connected (a connection the handle opened a moment ago): prepared now.
  if (admin.status === 'ready') install();
  admin.on('close', () => (current = false));
  return { admin, address, prepared, ready: () => current, lastError: () => lastError };
}
