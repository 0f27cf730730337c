// The sandbox: a standalone node (with the native module when it is built) and a cluster-enabled
// node that owns every slot. VALKEY_URL (and VALKEY_CLUSTER_URL) point at existing servers instead.

import { nativeModulePath, startValkeyNode, type ValkeyNodeOptions } from './valkey-process.ts';

export interface SandboxEndpoint {
  url: string;
  /** True when this process started the server (and stops it). */
  owned: boolean;
}

export interface Sandbox {
  standalone: SandboxEndpoint;
  cluster: SandboxEndpoint | null;
  /** Whether the standalone node was started with the native module. */
  nativeModule: string | null;
  stop(): Promise<void>;
}

export interface SandboxOptions {
  cluster?: boolean;
  /** Load the native module into the standalone node when it is built (default true). */
  native?: boolean;
  standaloneSettings?: ValkeyNodeOptions['settings'];
  env?: NodeJS.ProcessEnv;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const env = options.env ?? process.env;
  const stops: Array<() => Promise<void>> = [];
  try {
    let standalone: SandboxEndpoint;
    let nativeModule: string | null = null;
    if (env.VALKEY_URL) {
      standalone = { url: env.VALKEY_URL, owned: false };
    } else {
      nativeModule = options.native === false ? null : nativeModulePath();
      const node = await startValkeyNode({ module: nativeModule, settings: options.standaloneSettings });
      stops.push(node.stop);
      standalone = { url: node.url, owned: true };
    }

    let cluster: SandboxEndpoint | null = null;
    if (options.cluster !== false) {
      if (env.VALKEY_CLUSTER_URL) {
        cluster = { url: env.VALKEY_CLUSTER_URL, owned: false };
      } else {
        // The cluster node loads the module too, so its exact refusal on a cluster can be shown.
        const node = await startValkeyNode({ cluster: true, module: nativeModulePath() });
        stops.push(node.stop);
        cluster = { url: node.url, owned: true };
      }
    }
    return {
      standalone,
      cluster,
      nativeModule,
      stop: async () => void (await Promise.all(stops.map((s) => s()))),
    };
  } catch (error) {
    await Promise.all(stops.map((stop) => stop()));
    throw error;
  }
}
