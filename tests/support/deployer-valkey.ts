// Valkey as a deployer brings it, not as the site's own sandbox starts it: a standalone server with the
// default 16 databases (and the native module, when built, as the deployment guide says to load it), and a three-node cluster made by `valkey-cli --cluster create`
// (its own slot split and epochs, not the sandbox's CLUSTER MEET). Each node has an admin password and
// the `default` user off. The site reaches them through VALKEY_URL and VALKEY_CLUSTER_URL.

import { randomBytes } from 'node:crypto';
import { startDeployedValkey } from './cluster-create.ts';
import {
  nativeModulePath,
  startValkeyNode,
  type AdminCredentials,
} from '../../server/sandbox/valkey-process.ts';

export interface DeployerValkey {
  /** VALKEY_URL: the standalone server, with the admin's credentials. */
  standaloneUrl: string;
  /** VALKEY_CLUSTER_URL: every cluster node, the admin's credentials in the first. */
  clusterUrl: string;
  /** Every node's URL (standalone first), for reading each as the admin. */
  nodeUrls: string[];
  stop(): Promise<void>;
}

export async function startDeployerValkey(): Promise<DeployerValkey> {
  const admin: AdminCredentials = { username: 'admin', password: randomBytes(18).toString('base64url') };
  const { standalone, members, stop } = await startDeployedValkey(
    admin,
    () => startValkeyNode({ admin, databases: 16, module: nativeModulePath() }),
    (port) => startValkeyNode({ admin, cluster: true, port }),
  );
  return {
    standaloneUrl: standalone.url,
    clusterUrl: members.map((n) => n.url).join(','),
    nodeUrls: [standalone, ...members].map((n) => n.url),
    stop,
  };
}
