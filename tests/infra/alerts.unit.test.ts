import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createMetrics } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readPromQL, resultLabels } from './promql.ts';

/**
 * infra/k8s/alerts.yaml against Prometheus' grammar and against the metrics Formgate really exports: the registry
 * every process builds (`createMetrics()`, as the composition roots call it), not a list kept by hand.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const { groups } = parse(readFileSync(resolve(ROOT, 'infra/k8s/alerts.yaml'), 'utf8'));
interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules: Rule[] = groups.flatMap((g: { rules: Rule[] }) => g.rules);

/** Labels Prometheus attaches to every series it scrapes (the target's), whatever the process exports. */
const TARGET_LABELS = ['job', 'instance'];
/** Series of other exporters the rules read; Formgate cannot know their labels. */
const OTHER_EXPORTERS = /^(container_|kube_)/; // cAdvisor (the kubelet), kube-state-metrics

/** A metric as the registry holds it: prom-client's own and the kit's fast ones alike. */
interface RegisteredMetric {
  labelNames?: string[];
  get(): Promise<{ name: string; type: string }> | { name: string; type: string };
}

/** Every series name a process exposes, with the labels it carries (a histogram's `_bucket` also has `le`). */
async function exportedSeries(): Promise<Map<string, string[]>> {
  const { registry } = createMetrics();
  const series = new Map<string, string[]>();
  for (const metric of registry.getMetricsAsArray() as unknown as RegisteredMetric[]) {
    const { name, type } = await metric.get();
    const labels = metric.labelNames;
    if (!labels) throw new Error(`${name}: the registry does not say its labels`);
    if (type === 'histogram' || type === 'summary') {
      series.set(type === 'histogram' ? `${name}_bucket` : name, [...labels, type === 'histogram' ? 'le' : 'quantile']);
      series.set(`${name}_sum`, labels);
      series.set(`${name}_count`, labels);
    } else series.set(name, labels);
  }
  return series;
}

/** A series' labels once scraped; undefined for one no Formgate process exports. */
const scrapedLabels = (series: Map<string, string[]>) => (metric: string) => {
  const own = series.get(metric);
  return own ? [...own, ...TARGET_LABELS, '__name__'] : undefined;
};

/** What is wrong with `rule` against the exported series; empty when nothing is. */
function mistakes(rule: Pick<Rule, 'expr' | 'annotations'>, series: Map<string, string[]>): string[] {
  const { expr } = rule;
  const read = readPromQL(expr);
  const found = [...read.syntaxErrors.map((e) => `syntax error ${e}`), ...read.problems];
  const labelsOf = scrapedLabels(series);
  for (const { metric, labels } of read.selectors) {
    if (OTHER_EXPORTERS.test(metric)) continue;
    const known = labelsOf(metric);
    if (!known) found.push(`${metric}: no Formgate process exports it`);
    for (const label of labels) if (known && !known.includes(label)) found.push(`${metric} has no label ${label}`);
  }
  for (const { labels, metrics } of read.groupings) {
    for (const metric of metrics) {
      const known = labelsOf(metric); // an unknown metric is reported above
      for (const label of labels)
        if (known && !known.includes(label)) found.push(`grouping by ${label}: ${metric} has no such label`);
    }
  }
  // `{{ $labels.x }}` in an annotation renders empty unless the result keeps x.
  const result = resultLabels(expr, (m) => (OTHER_EXPORTERS.test(m) ? undefined : labelsOf(m)));
  for (const [key, template] of Object.entries(rule.annotations ?? {}))
    for (const [, label] of template.matchAll(/\$labels\.(\w+)/g))
      if (result && !result.has(label as string)) found.push(`${key}: $labels.${label} is not a label of the result`);
  return found;
}

describe('infra/k8s/alerts.yaml', () => {
  it('is a Prometheus rules file over the metrics docs/operations.md names', () => {
    const doc = readFileSync(resolve(ROOT, 'docs/operations.md'), 'utf8');
    expect(rules.length).toBeGreaterThan(5);
    for (const r of rules) {
      expect(r, r.alert).toMatchObject({ alert: expect.stringMatching(/^Formgate/), expr: expect.any(String) });
      expect(['page', 'warn'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      for (const metric of r.expr.match(/formgate_[a-z_]+/g) ?? [])
        expect(doc, `${r.alert}: ${metric} is documented`).toContain(metric.replace(/_(bucket|sum|count)$/, ''));
    }
  });

  it('has valid PromQL in every expr, over series and labels a Formgate process exports', async () => {
    const series = await exportedSeries();
    expect(series.get('formgate_http_request_duration_seconds_bucket')).toContain('route');
    for (const r of rules) expect(mistakes(r, series), r.alert).toEqual([]);
  });

  it('finds each kind of mistake (the check above can fail)', async () => {
    const series = await exportedSeries();
    const cases: [string, RegExp][] = [
      ['sum(rate(formgate_dead_letters_total[5m])', /syntax error/],
      ['sum(rate(formgate_dead_letters_total[5m])) >', /syntax error/],
      ['rated(formgate_dead_letters_total[5m])', /syntax error/],
      ['rate(formgate_dead_letters_total)', /rate\(\) takes a range vector/],
      ['rate(formgate_dead_letter_total[5m])', /formgate_dead_letter_total: no Formgate process exports it/],
      ['nodejs_eventloop_lag_p98_seconds > 1', /nodejs_eventloop_lag_p98_seconds: no Formgate/],
      ['formgate_consumer_lag{service="x"}', /formgate_consumer_lag has no label service/],
      ['formgate_consumer_lag{"service"="x"}', /formgate_consumer_lag has no label service/],
      ['{__name__="formgate_consumer_lag"}', /names no metric/],
      ['sum by (route) (formgate_ingest_submissions_total)', /grouping by route: formgate_ingest_submissions_total/],
      ['formgate_http_requests_total_bucket', /formgate_http_requests_total_bucket: no Formgate process exports it/],
      ['histogram_quantile(0.9, sum by (service) (rate(formgate_bus_batch_size_bucket[5m])))', /drops le/],
      ['formgate_dead_letters_total / on(pod) formgate_consumer_lag', /grouping by pod: formgate_dead_letters_total/],
    ];
    for (const [expr, mistake] of cases) expect(mistakes({ expr }, series).join('\n'), expr).toMatch(mistake);
    const summary = (label: string) => ({ summary: `{{ $labels.${label} }} is slow` });
    const quantile = 'histogram_quantile(0.9, sum by (le, topic) (rate(formgate_bus_batch_size_bucket[5m]))) > 1';
    expect(mistakes({ expr: quantile, annotations: summary('topic') }, series)).toEqual([]);
    expect(mistakes({ expr: quantile, annotations: summary('le') }, series)).toEqual([
      'summary: $labels.le is not a label of the result',
    ]);
    const lag = 'sum by (group) (formgate_consumer_lag) > 0 and delta(formgate_consumer_lag[5m]) >= 0';
    expect(mistakes({ expr: lag, annotations: summary('group') }, series)).toEqual([]);
    expect(mistakes({ expr: lag, annotations: summary('topic') }, series)).toEqual([
      'summary: $labels.topic is not a label of the result',
    ]);
    expect(
      mistakes({ expr: 'increase(formgate_dead_letters_total[5m]) > 0', annotations: summary('topic') }, series),
    ).toEqual([]);
  });
});
