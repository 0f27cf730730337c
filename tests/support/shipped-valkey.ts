// Valkey as the deployment guide installs it: a standalone and a three-node cluster started from the
// configuration files the repository ships (deploy/valkey-standalone.conf, deploy/valkey-cluster-node.conf),
// with only what a deployer changes changed — the install root (/srv/owned-keyspace, where the module
// lies) and the admin's password — and the port, bind address and folder set on the command line. The
// cluster is joined by `valkey-cli --cluster create`, as the file's head says.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDeployedValkey } from './cluster-create.ts';
import { projectRoot } from '../../server/project-root.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';

/** Where the shipped files say the project is installed. */
export const INSTALL_ROOT = '/srv/owned-keyspace';
const PLACEHOLDER_PASSWORD = 'change-this-password';

export interface ShippedValkey {
  standaloneUrl: string;
  clusterUrl: string;
  standalone: ValkeyNode;
  /** Whether the standalone loaded the native module (built by scripts/setup.sh). */
  native: boolean;
  stop(): Promise<void>;
}

/** A shipped file as a deployer fills it: the password, and the module at this checkout's build. */
function filled(name: string, password: string, dir: string): string {
  let text = readFileSync(join(projectRoot(), 'deploy', name), 'utf8');
  if (!text.includes(PLACEHOLDER_PASSWORD)) throw new Error(`deploy/${name} has no ${PLACEHOLDER_PASSWORD}`);
  text = text.replaceAll(PLACEHOLDER_PASSWORD, password);
  const module = nativeModulePath();
  text = module
    ? text.replace(/^loadmodule \S+$/m, `loadmodule ${module}`)
    : text.replace(/^loadmodule \S+$/m, '# (the native module is not built here)');
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

export async function startShippedValkey(): Promise<ShippedValkey> {
  const password = randomBytes(18).toString('base64url');
  const admin = { username: 'admin', password };
  const dir = mkdtempSync(join(tmpdir(), 'emq-shipped-valkey-'));
  const standaloneConf = filled('valkey-standalone.conf', password, dir);
  const nodeConf = filled('valkey-cluster-node.conf', password, dir);
  const { standalone, members, stop } = await startDeployedValkey(
    admin,
    () => startValkeyNode({ configFile: standaloneConf, admin }),
    (port) => startValkeyNode({ configFile: nodeConf, admin, port }),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  return {
    standaloneUrl: standalone.url,
    clusterUrl: members.map((n) => n.url).join(','),
    standalone,
    native: nativeModulePath() !== null,
    stop,
  };
}
