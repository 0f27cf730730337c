// Every built page is valid HTML under html-validate's standard preset — what axe does not flag (an
// aria-label on an element without a role is ignored by screen readers; a <style> inside <article>) —
// and so is each course page once its live explorer island has arrived, as the reader's browser holds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { HtmlValidate, type Report } from 'html-validate';
import { CLIENT, COURSE_ROUTES, ensureBuilt } from '../../scripts/site.ts';
import { useCourse, reachExplorer } from '../support/site.ts';

const validator = new HtmlValidate({ extends: ['html-validate:standard'] });

function problems(report: Report): string[] {
  return report.results.flatMap((r) =>
    r.messages.map((m) => `${r.filePath}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`),
  );
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html'))
    .map((f) => join(dir, f));
}

test('every built page (dist/client/**/*.html) has no html-validate errors (standard preset)', async () => {
  ensureBuilt();
  const files = htmlFiles(CLIENT);
  assert.ok(files.length >= COURSE_ROUTES.length + 1, `the pages and the 404 (${files.length})`);
  const found: string[] = [];
  for (const file of files) {
    found.push(
      ...problems(await validator.validateString(readFileSync(file, 'utf8'), relative(CLIENT, file))),
    );
  }
  assert.deepEqual(found, []);
});

const course = useCourse();

test('each course page with its explorer island arrived is valid too', async () => {
  const page = await course.browser.newPage();
  const found: string[] = [];
  for (const route of COURSE_ROUTES) {
    await page.goto(course.site.url + route);
    if (route !== '/') await reachExplorer(page);
    found.push(...problems(await validator.validateString(await page.content(), `${route} (live)`)));
  }
  await page.close();
  assert.deepEqual(found, []);
});
