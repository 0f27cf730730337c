// Debian's nginx as a test's load balancer: the site block deployers use (docs/nginx-site.conf, its
// ${…} names filled in) inside a main config of the test's own, in a temporary directory that holds
// the pid file, the logs and the temp paths, so nginx runs as any user and leaves nothing elsewhere.
// Started in the foreground (daemon off) as this process's child, on a free port; stopped by the test.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../server/project-root.ts';
import { freePort } from '../../server/sandbox/free-port.ts';

export const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
export const SITE_TEMPLATE = join(projectRoot(), 'docs', 'nginx-site.conf');

/** The template with each `${NAME}` replaced; a name without a value is an error, not an empty string. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the nginx template needs \${${name}}; give it a value`);
    return value;
  });
}

export interface Nginx {
  /** `http://127.0.0.1:<port>`: where readers reach the sites through the proxy. */
  url: string;
  /** nginx's error log so far (for a failing test's message). */
  errors(): string;
  stop(): Promise<void>;
}

/** Starts nginx in front of `sites` (`host:port` each, two as the template has them). */
export async function startNginx(sites: [string, string]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'emq-nginx-'));
  const port = await freePort();
  const site = fillTemplate(readFileSync(SITE_TEMPLATE, 'utf8'), {
    LISTEN: `127.0.0.1:${port}`,
    SITE_A: sites[0],
    SITE_B: sites[1],
  });
  writeFileSync(join(dir, 'site.conf'), site);
  // What a distribution's /etc/nginx/nginx.conf would hold, with every path inside `dir`.
  const main = [
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    `  access_log off;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
    `  include ${dir}/site.conf;`,
    '}',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), main);
  const errorLog = join(dir, 'error.log');
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog, '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const errors = () => {
    try {
      return stderr + readFileSync(errorLog, 'utf8');
    } catch {
      return stderr;
    }
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM'); // nginx's fast shutdown: the master ends its workers, then itself
    }).then(() => rmSync(dir, { recursive: true, force: true }));

  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start on port ${port}:\n${errors()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, errors, stop };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
