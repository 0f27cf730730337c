// Serves the built site with Astro's standalone server, then wakes the explorer: its first request
// starts the sandbox (unless VALKEY_URL is set), so the first reader does not wait for it.

export {};

process.env.HOST ??= '127.0.0.1';
process.env.PORT ??= '4321';

// @ts-ignore — dist/ exists only after `astro build`.
await import('../dist/server/entry.mjs');

const origin = `http://${process.env.HOST}:${process.env.PORT}`;
const sandbox = (await fetch(`${origin}/api/sandbox`).then((response) => response.json())) as {
  sandbox: string;
  native: boolean;
};
console.log(`sandbox: ${sandbox.sandbox}${sandbox.native ? ', native module loaded' : ''}`);
console.log(`the owned keyspace: http://localhost:${process.env.PORT}/`);
