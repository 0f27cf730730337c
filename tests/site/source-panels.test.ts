// Each code panel shows the current source of the symbol it names: its text equals the lines of the
// file it cites, those lines are what the extractor finds for the symbol today, and they begin at
// the symbol's declaration (or its doc comment).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { readSymbol } from '../../src/lib/source.ts';
import { COURSE_ROUTES, ROOT, startSite, type Site } from '../../scripts/site.ts';
import { launchBrowser } from '../support/site.ts';

interface Panel {
  file: string;
  symbol: string;
  lines: string;
  code: string;
}

let site: Site;
let browser: Browser;
const panels: { route: string; panel: Panel }[] = [];
before(async () => {
  site = await startSite();
  browser = await launchBrowser();
  const page = await browser.newPage();
  for (const route of COURSE_ROUTES) {
    await page.goto(site.url + route);
    const found = await page.$$eval('figure.source-panel', (figs) =>
      figs.map((f) => ({
        file: f.getAttribute('data-source-file')!,
        symbol: f.getAttribute('data-source-symbol')!,
        lines: f.getAttribute('data-source-lines')!,
        code: f.querySelector('pre code')?.textContent ?? '',
      })),
    );
    panels.push(...found.map((panel) => ({ route, panel })));
  }
  await page.close();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

test('the pages carry source panels, each showing its code (a panel naming what is not there fails the build)', () => {
  assert.ok(panels.length >= 20, `${panels.length} panels`);
  for (const { route, panel } of panels)
    assert.ok(panel.code.length > 0 && panel.lines, `${route}: ${panel.file}`);
});

test("each shown panel's text equals the current source of its symbol", () => {
  for (const { route, panel } of panels) {
    const where = `${route}: ${panel.file} ${panel.symbol || '(whole file)'}`;
    const path = join(ROOT, panel.file);
    assert.ok(existsSync(path), where);
    const [start, end] = panel.lines.split('-').map(Number) as [number, number];
    const fileLines = readFileSync(path, 'utf8').split('\n');
    assert.equal(
      panel.code,
      fileLines.slice(start - 1, end).join('\n'),
      `${where}: the page equals lines ${panel.lines}`,
    );
    const span = readSymbol(ROOT, panel.file, panel.symbol || null);
    assert.ok(span, where);
    assert.equal(`${span.startLine}-${span.endLine}`, panel.lines, `${where}: the symbol has moved; rebuild`);
    if (panel.symbol) {
      const name = panel.symbol.split('::').pop()!.split(' ').pop()!;
      assert.ok(
        new RegExp(
          `\\b(function|const|class|interface|type|fn|impl|struct|enum)\\b[^\\n]*\\b${name}\\b`,
        ).test(panel.code),
        `${where}: the panel holds the declaration of ${name}`,
      );
    } else {
      assert.equal(start, 1, `${where}: a whole file starts at line 1`);
    }
  }
});

test('the named real symbols are wired in', () => {
  const shown = new Set(panels.map((p) => `${p.panel.file}#${p.panel.symbol}`));
  for (const want of [
    'server/contract/keyspace/grammar.ts#queueKey',
    'server/contract/keyspace/grammar.ts#jobKey',
    'server/contract/keyspace/grammar.ts#rowBase',
    'server/contract/keyspace/types.ts#KEY_TYPES',
    'server/contract/keyspace/admission.ts#validQueue',
    'server/contract/keyspace/hashtag.ts#hashtag',
    'server/contract/keyspace/hashtag.ts#slot',
    'server/contract/keyspace/hashtag.ts#crc16',
    'server/contract/keyspace/reserve.ts#reserve',
    'server/contract/keyspace/reserve.ts#versionKey',
    'server/contract/keyspace/reserve.ts#WIRE4_IDENTITY',
    'server/contract/keyspace/reserve.ts#WIRE6_IDENTITY',
    'server/contract/keyspace/branded-id.ts#problemWith',
    'server/executors/lua/claim-3.lua#',
    'server/connectors/wire4.ts#connectWire4',
  ]) {
    assert.ok(shown.has(want), want);
  }
});
