// The one-preload-per-island rewrite (src/lib/island-preloads.ts), on pages written as Astro 7.3.5
// writes them: the preload the island's script fetches stays, the one nothing fetches goes, and a page
// with nothing to drop comes back byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropUnusedIslandPreloads } from '../../src/lib/island-preloads.ts';

const USED = '/_server-islands/Explorer?e=AB%2B1&p=CD%3D%3D&s=';
const UNUSED = '/_server-islands/Explorer?e=EF%2B2&p=GH%3D%3D&s=';
const attribute = (url: string) => url.replaceAll('&', '&amp;');
const preload = (url: string) =>
  `<link rel="preload" as="fetch" href="${attribute(url)}" crossorigin="anonymous">`;
const islandScript = (url: string) =>
  `<script type="module" data-astro-rerun data-island-id="1">const headers = new Headers({});\n` +
  `let response = await fetch(${JSON.stringify(url).replace(/</g, '\\u003c')}, { headers });` +
  `replaceServerIsland("1", response);</script>`;
const page = (head: string, body: string) =>
  `<!DOCTYPE html><html><head><link rel="icon" href="/favicon.svg">${head}</head><body>${body}</body></html>`;

test('of two preloads of one island, the one its script fetches stays and the other goes', () => {
  const html = page(preload(USED) + preload(UNUSED), islandScript(USED));
  assert.equal(dropUnusedIslandPreloads(html), page(preload(USED), islandScript(USED)));
  // whichever of the two comes first in the head
  const reversed = page(preload(UNUSED) + preload(USED), islandScript(USED));
  assert.equal(dropUnusedIslandPreloads(reversed), page(preload(USED), islandScript(USED)));
});

test('a page without a duplicate, or without an island, is left as it is', () => {
  const once = page(preload(USED), islandScript(USED));
  assert.equal(dropUnusedIslandPreloads(once), once);
  const plain = page('<link rel="preload" as="font" href="/a.woff2" crossorigin>', '<p>text</p>');
  assert.equal(dropUnusedIslandPreloads(plain), plain);
});

test('two islands on a page keep a preload each', () => {
  const other = '/_server-islands/Other?e=XY&p=&s=';
  const html = page(
    preload(USED) + preload(other) + preload(UNUSED),
    islandScript(USED) + islandScript(other),
  );
  assert.equal(
    dropUnusedIslandPreloads(html),
    page(preload(USED) + preload(other), islandScript(USED) + islandScript(other)),
  );
});
