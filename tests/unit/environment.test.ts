// What a deployer sets, read in server/settings/environment.ts: unset or empty takes the default, the
// smallest allowed value is taken, one past it ends the start naming the variable and what it got.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';
import {
  addressLogging,
  DEFAULTS,
  drainDeadlineMs,
  fileLimit,
  metricsSettings,
  frontSettings,
  runSettings,
  siteSettings,
} from '../../server/settings/environment.ts';
import { RESERVED_DESCRIPTORS } from '../../server/settings/bounds.ts';

const NUMBERS = Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[];

/**
 * The variables that say which servers to use, not how much, and the files that read them: where the
 * servers are started or reached, from an environment passed in (so a test passes its own).
 */
const SERVER_VARIABLES = {
  /** The deployer's standalone Valkey, as its admin (the explorer's password is derived from it). */
  VALKEY_URL: ['server/sandbox/sandbox.ts', 'server/explorer/runtime.ts'],
  /** The deployer's cluster: one or more seed nodes, comma-separated, as the admin. */
  VALKEY_CLUSTER_URL: ['server/sandbox/sandbox.ts'],
  /** The valkey-server binary the sandbox starts (default: the one on PATH). */
  VALKEY_SERVER: ['server/sandbox/valkey-process.ts'],
  /** Where scripts/valkey9.sh builds Valkey 9.1. */
  VALKEY9_HOME: ['server/sandbox/valkey9-build.ts'],
} as const;

/** Every setting read from `env`, so a bad value anywhere throws. */
function readAll(env: NodeJS.ProcessEnv) {
  return { front: frontSettings(env), run: runSettings(env), site: siteSettings(env) };
}

describe('the environment', () => {
  it('unset or empty, every variable takes its default', () => {
    const empty = Object.fromEntries(NUMBERS.map((name) => [name, '']));
    for (const env of [{}, empty]) {
      const { front, run, site } = readAll(env);
      const byFiles = Math.max(64, Math.min(fileLimit() - RESERVED_DESCRIPTORS, fileLimit() / 2));
      assert.equal(front.maxConnections, Math.floor(Math.min(DEFAULTS.MAX_CONNECTIONS, byFiles)));
      assert.equal(front.maxConnectionsPerAddress, DEFAULTS.MAX_CONNECTIONS_PER_ADDRESS);
      assert.equal(front.headersTimeoutMs, DEFAULTS.HEADERS_TIMEOUT_MS);
      assert.equal(front.requestTimeoutMs, DEFAULTS.REQUEST_TIMEOUT_MS);
      assert.equal(front.keepAliveTimeoutMs, DEFAULTS.KEEP_ALIVE_TIMEOUT_MS);
      assert.equal(front.burst, DEFAULTS.EXPLORER_BURST);
      assert.equal(front.ratePerSecond, DEFAULTS.EXPLORER_RATE);
      assert.deepEqual(front.trustProxy, []);
      assert.deepEqual(run, { deadlineMs: DEFAULTS.RUN_DEADLINE_MS, graceMs: DEFAULTS.LEASE_GRACE_MS });
      assert.deepEqual(site, {
        host: '127.0.0.1',
        port: DEFAULTS.PORT,
        workers: DEFAULTS.WORKERS,
        valkey9AtStart: true,
      });
    }
  });

  it('a value set is the value read', () => {
    const { front, run, site } = readAll({
      MAX_CONNECTIONS_PER_ADDRESS: '4',
      HEADERS_TIMEOUT_MS: '2000',
      EXPLORER_RATE: '0.5',
      RUN_DEADLINE_MS: '2000',
      LEASE_GRACE_MS: '1000',
      WORKERS: '2',
      PORT: '4412',
      HOST: '127.0.0.2',
      TRUST_PROXY: ' 10.0.0.1 ,, 10.0.0.2',
      VALKEY9_AT_START: '0',
    });
    assert.equal(front.maxConnectionsPerAddress, 4);
    assert.equal(front.headersTimeoutMs, 2000);
    assert.equal(front.ratePerSecond, 0.5);
    assert.deepEqual(front.trustProxy, ['10.0.0.1', '10.0.0.2']);
    assert.deepEqual(run, { deadlineMs: 2000, graceMs: 1000 });
    assert.deepEqual(site, { host: '127.0.0.2', port: 4412, workers: 2, valkey9AtStart: false });
  });

  it('with several processes, each takes its share of the rate limit', () => {
    const front = frontSettings({ EXPLORER_BURST: '30', EXPLORER_RATE: '5' }, 4);
    assert.equal(front.burst, 8); // 30 / 4, rounded up
    assert.equal(front.ratePerSecond, 1.25);
    assert.equal(frontSettings({ EXPLORER_BURST: '1' }, 4).burst, 1);
  });

  it('every number at its smallest is taken; zero, negative and non-numbers are refused by name', () => {
    for (const name of NUMBERS) {
      assert.doesNotThrow(() => readAll({ [name]: '1' }), name);
      for (const bad of ['0', '-1', 'abc', 'Infinity', '1e999', '15s']) {
        if (name === 'PORT' && bad === '0') continue; // any free port
        assert.throws(
          () => readAll({ [name]: bad }),
          { message: `${name} must be a positive number, not ${bad}` },
          `${name}=${bad}`,
        );
      }
    }
  });

  it('a count is a whole number, and a port at most 65535', () => {
    assert.equal(siteSettings({ WORKERS: '1' }).workers, 1);
    assert.throws(() => siteSettings({ WORKERS: '2.5' }), {
      message: 'WORKERS must be a whole number, not 2.5',
    });
    assert.equal(siteSettings({ PORT: '0' }).port, 0);
    assert.equal(siteSettings({ PORT: '65535' }).port, 65535);
    assert.throws(() => siteSettings({ PORT: '65536' }), {
      message: 'PORT must be a port number (0 to 65535), not 65536',
    });
  });

  it('metrics: none unless METRICS_PORT is set; a port 1 to 65535, never the public one; loopback unless METRICS_HOST', () => {
    assert.equal(metricsSettings({}), null);
    assert.equal(metricsSettings({ METRICS_PORT: '' }), null);
    assert.deepEqual(metricsSettings({ METRICS_PORT: '1' }), { host: '127.0.0.1', port: 1 });
    assert.deepEqual(metricsSettings({ METRICS_PORT: '65535', METRICS_HOST: '10.0.0.2' }), {
      host: '10.0.0.2',
      port: 65535,
    });
    for (const bad of ['0', '65536', '9464.5', 'x'])
      assert.throws(() => metricsSettings({ METRICS_PORT: bad }), {
        message: `METRICS_PORT must be a port number (1 to 65535), not ${bad}`,
      });
    assert.throws(() => metricsSettings({ METRICS_PORT: '4321', PORT: '4321' }), {
      message: "METRICS_PORT must not be the public port (4321): the metrics are the operator's",
    });
  });

  it('the access log keeps no address unless LOG_ADDRESSES says network or full; anything else is refused', () => {
    assert.equal(addressLogging({}), 'none');
    for (const value of ['none', 'network', 'full'] as const)
      assert.equal(addressLogging({ LOG_ADDRESSES: value }), value);
    assert.equal(frontSettings({ LOG_ADDRESSES: 'full' }).logAddresses, 'full');
    assert.throws(() => addressLogging({ LOG_ADDRESSES: 'all' }), {
      message: 'LOG_ADDRESSES must be one of none, network, full, not all',
    });
  });

  it('the drain lasts the run deadline, the answer margin and 4 s', () => {
    assert.equal(drainDeadlineMs({}), DEFAULTS.RUN_DEADLINE_MS + 1000 + 4000);
    assert.equal(drainDeadlineMs({ RUN_DEADLINE_MS: '30000' }), 35_000);
  });

  it('no other file of server/ reads a variable, but the few that name servers, each where it says', () => {
    const server = join(projectRoot(), 'server');
    const reads: string[] = [];
    for (const name of readdirSync(server, { recursive: true, encoding: 'utf8' })) {
      const file = join(server, name);
      if (!name.endsWith('.ts') || name === join('settings', 'environment.ts')) continue;
      // A read: `env.NAME` or `env[…]` not being assigned to (serve.ts sets ASTRO_NODE_AUTOSTART).
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)(?!\w)|\[)(?!\s*=[^=])/g)) {
        const variable = m[1] ?? '[…]';
        const at = relative(projectRoot(), file);
        const readers: readonly string[] = SERVER_VARIABLES[variable as keyof typeof SERVER_VARIABLES] ?? [];
        if (!readers.includes(at)) reads.push(`${at}: ${variable}`);
      }
    }
    assert.deepEqual(reads, []);
  });
});
