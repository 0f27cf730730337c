// A cluster made as a deployer makes one: `valkey-cli --cluster create` over nodes started in cluster
// mode (its own slot split and epochs, not the sandbox's CLUSTER MEET), signed in as the admin, then
// waited on until every node says cluster_state:ok; beside it a standalone server, as the deployment
// guide runs them. Shared by the deployer's and the shipped configuration's Valkey (tests/support) and
// the test of a cluster with replicas.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freeClusterPort, waitClusterOk } from '../../server/sandbox/cluster.ts';
import type { AdminCredentials, ValkeyNode } from '../../server/sandbox/valkey-process.ts';

/** Makes one cluster of the loopback nodes at `ports` (`replicas` per primary) and waits until it is ok. */
export async function createClusterByCli(
  ports: number[],
  admin: AdminCredentials,
  { replicas = 0, waitMs = 20_000 } = {},
): Promise<void> {
  await promisify(execFile)(
    'valkey-cli',
    [
      '--user',
      admin.username,
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      ...(replicas > 0 ? ['--cluster-replicas', String(replicas)] : []),
      '--cluster-yes',
    ],
    // The password through the environment, not on a command line any local process can read.
    { env: { ...process.env, REDISCLI_AUTH: admin.password }, timeout: 30_000 },
  );
  await waitClusterOk(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    admin,
    waitMs,
  );
}

/** A standalone server and a three-node cluster made by `createClusterByCli`, as a deployer runs them. */
export interface DeployedValkey {
  standalone: ValkeyNode;
  members: ValkeyNode[];
  /** Stops every node, then `cleanUp` (the caller's configuration files). */
  stop(): Promise<void>;
}

/**
 * Starts the standalone (`standalone()`) and three cluster nodes (`member(port)`, each on a port its
 * cluster bus can take) and makes the cluster; on any failure, stops what it started and throws.
 */
export async function startDeployedValkey(
  admin: AdminCredentials,
  standalone: () => Promise<ValkeyNode>,
  member: (port: number) => Promise<ValkeyNode>,
  cleanUp: () => void = () => {},
): Promise<DeployedValkey> {
  const nodes: ValkeyNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    cleanUp();
  };
  try {
    nodes.push(await standalone());
    for (let i = 0; i < 3; i += 1) nodes.push(await member(await freeClusterPort()));
    const members = nodes.slice(1);
    await createClusterByCli(
      members.map((n) => n.port),
      admin,
    );
    return { standalone: nodes[0]!, members, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
