// Valkey as a deployer brings it, not as the site's own sandbox starts it: a standalone server with the
// default 16 databases (and the native module, when built, as the deployment guide says to load it), and a three-node cluster made by `valkey-cli --cluster create`
// (its own slot split and epochs, not the sandbox's CLUSTER MEET). Each node has an admin password and
// the `default` user off. The site reaches them through VALKEY_URL and VALKEY_CLUSTER_URL.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { freeClusterPort, waitClusterOk } from '../../server/sandbox/cluster.ts';
import {
  nativeModulePath,
  startValkeyNode,
  type AdminCredentials,
  type ValkeyNode,
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
  const nodes: ValkeyNode[] = [];
  const stop = async () => void (await Promise.all(nodes.map((node) => node.stop())));
  try {
    nodes.push(await startValkeyNode({ admin, databases: 16, module: nativeModulePath() }));
    for (let i = 0; i < 3; i += 1) {
      nodes.push(await startValkeyNode({ admin, cluster: true, port: await freeClusterPort() }));
    }
    const members = nodes.slice(1);
    await promisify(execFile)(
      'valkey-cli',
      [
        '--user',
        admin.username,
        '--cluster',
        'create',
        ...members.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-yes',
      ],
      // The password through the environment, not on a command line any local process can read.
      { env: { ...process.env, REDISCLI_AUTH: admin.password }, timeout: 30_000 },
    );
    await waitClusterOk(
      members.map((n) => ({ host: '127.0.0.1', port: n.port })),
      admin,
    );
    return {
      standaloneUrl: nodes[0]!.url,
      clusterUrl: members.map((n) => n.url).join(','),
      nodeUrls: nodes.map((n) => n.url),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
