// Prometheus's text format read by a real parser (parse-prometheus-text-format, a port of the Python
// client's parser with prom2json's output), never by a regular expression of ours. Typed here: the
// package ships none.

import { createRequire } from 'node:module';

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => MetricFamily[];

export function parsePrometheusText(text: string): MetricFamily[] {
  return parse(text);
}

/** The sum of a family's samples whose labels include `labels` (a counter's or gauge's value; a histogram's count). */
export function sampleSum(
  families: MetricFamily[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}
