// What a page load costs the reader, read in Chromium from the page's own performance entries:
// first and largest contentful paint, cumulative layout shift (shifts right after input excluded, as
// Lighthouse does) and long tasks. Shared by the CLS test and scripts/page-speed.ts.
import type { BrowserContext, Page } from 'playwright-core';

export interface PageMetrics {
  fcp: number | null;
  lcp: number | null;
  /** Sum of every layout shift's value not caused by recent input. */
  cls: number;
  shifts: { value: number; at: number; sources: string[] }[];
  /** Long tasks (> 50 ms): how many, and the time over 50 ms summed (a total-blocking-time estimate). */
  longTasks: number;
  tbt: number;
}

declare global {
  interface Window {
    __metrics?: PageMetrics;
  }
}

/** Registers the observers before any of the page's own code runs, in every page of the context. */
export async function observeMetrics(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const m: PageMetrics = { fcp: null, lcp: null, cls: 0, shifts: [], longTasks: 0, tbt: 0 };
    window.__metrics = m;
    const describe = (node: Node | null) => {
      if (!(node instanceof Element)) return node?.nodeName ?? '?';
      const cls = node.getAttribute('class');
      return node.tagName.toLowerCase() + (cls ? '.' + cls.trim().split(/\s+/).join('.') : '');
    };
    const observe = (type: string, each: (entry: PerformanceEntry) => void) => {
      try {
        new PerformanceObserver((list) => list.getEntries().forEach(each)).observe({ type, buffered: true });
      } catch {
        // an entry type this browser does not report
      }
    };
    observe('paint', (e) => {
      if (e.name === 'first-contentful-paint') m.fcp = e.startTime;
    });
    observe('largest-contentful-paint', (e) => {
      m.lcp = e.startTime;
    });
    observe('layout-shift', (e) => {
      const shift = e as PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources?: { node: Node | null }[];
      };
      if (shift.hadRecentInput) return;
      m.cls += shift.value;
      m.shifts.push({
        value: shift.value,
        at: shift.startTime,
        sources: (shift.sources ?? []).map((s) => describe(s.node)),
      });
    });
    observe('longtask', (e) => {
      m.longTasks += 1;
      m.tbt += Math.max(0, e.duration - 50);
    });
  });
}

/** The metrics so far, after two frames so the last shifts are reported. */
export async function readMetrics(page: Page): Promise<PageMetrics> {
  return page.evaluate(
    () =>
      new Promise<PageMetrics>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.__metrics!))),
      ),
  );
}
