// Serves the built site: starts the sandbox (unless VALKEY_URL is set), then Astro's standalone server.
// The sandbox's servers are children of this process and stop with it.

import { startSandbox } from './sandbox/sandbox.ts';

const sandbox = await startSandbox();
process.env.VALKEY_URL = sandbox.standalone.url;
if (sandbox.cluster) process.env.VALKEY_CLUSTER_URL = sandbox.cluster.url;
process.env.HOST ??= '127.0.0.1';
process.env.PORT ??= '4321';
console.log(
  `sandbox: standalone ${sandbox.standalone.url}${sandbox.nativeModule ? ' (native module loaded)' : ''}`,
);
if (sandbox.cluster) console.log(`sandbox: cluster ${sandbox.cluster.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void sandbox.stop().finally(() => process.exit(0)));
}

// @ts-ignore — dist/ exists only after `astro build`.
await import('../dist/server/entry.mjs');
