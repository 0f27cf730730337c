// Serves the built site: our own HTTP front (server/front/) around Astro's request handler, then
// starts the explorer's runtime (its sandbox, pools and scripts, warmed), so the first reader does not
// wait for it. A sandbox that cannot be used ends the start with one line saying why (a worker, whose
// primary has checked it, serves on and tries again).
// With WORKERS=n, n processes share one port (Node's cluster module); this primary starts the sandbox
// once, checks it, and hands where it answers to every worker that asks (cluster/share.ts), which lease
// keyspaces through Valkey itself; it starts the Valkey 9.1 cluster too (at start, or when a worker
// first asks) and hands it over the same way, so a site has one of each, and a worker killed leaves no
// server of its own behind.
// SIGTERM drains (drain.ts): readiness 503, no new connection, every run in flight answered, then the
// servers stop. METRICS_PORT serves /metrics apart from the public port (observe/metrics-server.ts).

import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  explorerPasswordFor,
  explorerRuntime,
  sandboxAccess,
  sharedSandbox,
  siteSandboxOptions,
  startOn,
  type ExplorerRuntime,
} from './explorer/runtime.ts';
import {
  adoptAtomicCluster,
  atomicServers,
  clearAfterDeadProcess,
  closeAtomicRuntime,
  sharedAtomicCluster,
  warmAtomicRuntime,
} from './explorer/atomic-runtime.ts';
import { shareWith } from './cluster/share.ts';
import { isApiPath } from './api/routes.ts';
import { liveState } from './api/island.ts';
import { provideLiveState } from './contract/live-state.ts';
import { serveApi } from './front/serve-api.ts';
import { createFront, type Handler } from './front/front.ts';
import {
  drainDeadlineMs,
  fileLimit,
  frontSettings,
  metricsSettings,
  siteSettings,
} from './settings/environment.ts';
import { startSandbox } from './sandbox/sandbox.ts';
import { drainOnSignal, drainWorkersOnSignal } from './drain.ts';
import { serveMetrics } from './observe/metrics-server.ts';
import { observeServers } from './observe/metrics.ts';

/** How long stopping the servers may take once the drain is over, before the process ends anyway. */
const STOP_WAIT_MS = 5000;
/** A worker whose explorer could not start tries again 1 s later, then 1 s more each try, at most this apart. */
const WORKER_START_RETRY_MOST_MS = 5000;

const { host, port, workers, valkey9AtStart } = siteSettings();

/**
 * Starts the explorer's runtime, or ends this process with one line saying why it cannot (after
 * `cleanUp`: the primary stops the sandbox it started).
 */
async function explorerOrExit(
  cleanUp: () => Promise<void> = async () => {},
  start: () => Promise<ExplorerRuntime> = explorerRuntime,
) {
  try {
    return await start();
  } catch (error) {
    console.error(`the owned keyspace cannot start: ${(error as Error)?.message ?? String(error)}`);
    await cleanUp();
    process.exit(1);
  }
}

/**
 * A worker's explorer. Its primary checked the sandbox before forking it, so a start that fails now met a
 * node frozen or restarting: the worker serves on (the explorer says down meanwhile) and tries again
 * until it starts. Ending it dropped the connections it had accepted, and its replacement met the same
 * node: a loop of restarts for as long as the node was frozen.
 */
async function workerExplorer(): Promise<ExplorerRuntime> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await explorerRuntime();
    } catch (error) {
      const pause = Math.min(1000 * tries, WORKER_START_RETRY_MOST_MS);
      const why = String((error as Error)?.message ?? error).split('\n', 1)[0];
      console.error(
        `worker ${process.pid}: the explorer cannot start yet (${why}); trying again in ${pause} ms`,
      );
      await sleep(pause);
    }
  }
}

async function primary(): Promise<void> {
  // Each worker accepts its own connections: with the primary handing them out (Node's round robin), a
  // connection in flight to a worker that died was never answered and the primary kept it (CLOSE-WAIT)
  // for ever. Now no connection is ever the primary's: one the dead worker had accepted is closed with
  // it by the kernel at once, and those still waiting to be accepted are taken by the other workers.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const password = explorerPasswordFor(process.env);
  const sandbox = await startSandbox(siteSandboxOptions(password));
  const access = sandboxAccess(sandbox, password);
  // The workers' sandbox checked once, here, before any of them starts: what cannot be used ends the
  // start now rather than in a worker restarted every half second.
  const check = await explorerOrExit(
    () => sandbox.stop(),
    () => startOn(access),
  );
  await check.close();
  let stopping = false;
  const shared = { ...sharedSandbox(access), ...sharedAtomicCluster };
  const fork = () => shareWith(cluster.fork({ WORKERS: String(workers) }), shared);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    console.error(`worker ${worker.process.pid} ended (${signal ?? code}); starting another`);
    setTimeout(fork, 500);
    // What its atomic run left in flight on the shared Valkey 9.1 cluster is cancelled, and its keys go:
    // in a turn of its own, tried again until done.
    void clearAfterDeadProcess((line) => console.log(`atomic: after worker ${worker.process.pid}: ${line}`));
  });
  drainWorkersOnSignal({
    workers: () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined),
    stopping: () => (stopping = true),
    deadlineMs: drainDeadlineMs(),
    stop: () => stopWithin(Promise.all([sandbox.stop(), closeAtomicRuntime()])),
  });
  const metrics = metricsSettings();
  if (metrics) await serveMetrics(metrics, true);
  for (let i = 0; i < workers; i += 1) fork();
  if (valkey9AtStart) warmAtomicRuntime();
  console.log(`the owned keyspace: http://localhost:${port}/ (${workers} workers)`);
}

async function serve(): Promise<Server> {
  // Astro's entry would start its own server; we only want its handler. Its island imports server/ from
  // these same files (astro.config.mjs), so it runs on this process's one runtime.
  process.env.ASTRO_NODE_AUTOSTART = 'disabled';
  // The island asks through the contract (src/ imports nothing else of server/); this is its answer.
  provideLiveState(liveState);
  // @ts-ignore — dist/ exists only after `astro build`.
  const { handler } = (await import('../dist/server/entry.mjs')) as { handler: Handler };
  const settings = frontSettings(process.env, workers);
  const server = createFront(handler, { owns: isApiPath, serve: serveApi }, settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  if (cluster.isPrimary) {
    console.log(
      `front: at most ${settings.maxConnections} connections (file limit ${fileLimit()}), ${settings.maxConnectionsPerAddress} per address`,
    );
  }
  return server;
}

/** `stopping`, or after STOP_WAIT_MS whatever is left (process.exit's 'exit' kills our servers). */
function stopWithin(stopping: Promise<unknown>): Promise<void> {
  return Promise.race([stopping.then(() => {}), new Promise<void>((r) => setTimeout(r, STOP_WAIT_MS))]);
}

if (cluster.isPrimary && workers > 1) {
  await primary();
} else {
  // A worker reads the atomic half from the servers from its first status on (atomic-runtime.ts).
  await adoptAtomicCluster();
  const server = await serve();
  const alone = cluster.isPrimary;
  let started: ExplorerRuntime | undefined;
  drainOnSignal({
    server,
    deadlineMs: drainDeadlineMs(),
    // Alone, this process started the sandbox (or reached the deployer's) and the Valkey 9.1 cluster: it
    // stops them. A worker's are the primary's.
    stop: async () => {
      if (alone) await stopWithin(Promise.all([started?.close(), closeAtomicRuntime()]));
    },
  });
  const metrics = alone ? metricsSettings() : null;
  if (metrics) await serveMetrics(metrics, false);
  const runtime = alone ? await explorerOrExit() : await workerExplorer();
  started = runtime;
  observeServers(async () => [...(await runtime.servers()), ...(await atomicServers())]);
  const up = await runtime.health();
  // The Valkey 9.1 cluster (the reshard's atomic mode) starts in the background once it is built (with
  // several workers, the primary's); with VALKEY9_AT_START=0, on the first atomic run instead.
  if (workers === 1 && valkey9AtStart) warmAtomicRuntime();
  if (cluster.isPrimary) {
    console.log(`sandbox: ${up ? 'up' : 'down'}${runtime.native() ? ', native module loaded' : ''}`);
    console.log(`the owned keyspace: http://localhost:${port}/`);
  } else console.log(`worker ${process.pid}: serving runs (sandbox ${up ? 'up' : 'down'})`);
}
