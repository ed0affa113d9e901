import type { Registry } from 'prom-client';

/**
 * Labelled counters and histograms for hot paths, exposed through a prom-client `Registry`. prom-client hashes the
 * label set on every `inc`/`observe`, even of a bound child (about a microsecond for a histogram of four labels);
 * these find their child through one map per label (no string built, nothing allocated once the child exists) and
 * add to plain numbers. The exposition is computed at scrape time, in prom-client's format.
 */
interface Leaf {
  labels: Record<string, string>;
}

/** Children by label values, one map level per label; up to four labels. */
class Children<T extends Leaf> {
  private readonly root = new Map<string, unknown>();
  readonly all: T[] = [];
  constructor(
    private readonly names: readonly string[],
    private readonly make: (labels: Record<string, string>) => T,
  ) {
    if (names.length < 1 || names.length > 4) throw new Error('1 to 4 labels');
  }

  get(a: string, b = '', c = '', d = ''): T {
    const depth = this.names.length;
    let node = this.root;
    for (let i = 0; i < depth - 1; i++) {
      const value = i === 0 ? a : i === 1 ? b : c;
      let next = node.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(value, next);
      }
      node = next;
    }
    const last = depth === 1 ? a : depth === 2 ? b : depth === 3 ? c : d;
    let leaf = node.get(last) as T | undefined;
    if (leaf === undefined) {
      const values = [a, b, c, d];
      leaf = this.make(Object.fromEntries(this.names.map((n, i) => [n, values[i] as string])));
      node.set(last, leaf);
      this.all.push(leaf);
    }
    return leaf;
  }
}

interface MetricSpec {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry: Registry;
}

/**
 * What a prom-client `Registry` reads from a metric (`get()`), registered with `registerMetric`; `labelNames` as
 * prom-client's own metrics carry them, so a reader of the registry (the alert rules' test) sees every metric's labels.
 */
function register(
  registry: Registry,
  metric: { name: string; type: string; labelNames: readonly string[]; get(): unknown; reset(): void },
) {
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

export class FastCounter {
  private readonly children: Children<Leaf & { value: number }>;
  constructor(spec: MetricSpec) {
    this.children = new Children(spec.labelNames, (labels) => ({ labels, value: 0 }));
    const { children } = this;
    register(spec.registry, {
      name: spec.name,
      type: 'counter',
      labelNames: spec.labelNames,
      get: () => ({
        name: spec.name,
        help: spec.help,
        type: 'counter',
        aggregator: 'sum',
        values: children.all.map((c) => ({ labels: c.labels, value: c.value })),
      }),
      reset: () => {
        for (const c of children.all) c.value = 0;
      },
    });
  }

  inc(a: string, b?: string, c?: string, d?: string) {
    this.children.get(a, b, c, d).value++;
  }

  add(amount: number, a: string, b?: string, c?: string, d?: string) {
    this.children.get(a, b, c, d).value += amount;
  }
}

type HistogramLeaf = Leaf & { counts: Float64Array; sum: number; count: number };

export class FastHistogram {
  private readonly children: Children<HistogramLeaf>;
  constructor(
    spec: MetricSpec,
    private readonly buckets: readonly number[],
  ) {
    this.children = new Children(spec.labelNames, (labels) => ({
      labels,
      counts: new Float64Array(buckets.length),
      sum: 0,
      count: 0,
    }));
    const { children } = this;
    register(spec.registry, {
      name: spec.name,
      type: 'histogram',
      labelNames: spec.labelNames,
      get: () => {
        const values: { labels: Record<string, string>; value: number; metricName: string }[] = [];
        for (const c of children.all) {
          let cumulative = 0;
          buckets.forEach((le, i) => {
            cumulative += c.counts[i] as number;
            values.push({
              labels: { ...c.labels, le: String(le) },
              value: cumulative,
              metricName: `${spec.name}_bucket`,
            });
          });
          values.push({ labels: { ...c.labels, le: '+Inf' }, value: c.count, metricName: `${spec.name}_bucket` });
          values.push({ labels: c.labels, value: c.sum, metricName: `${spec.name}_sum` });
          values.push({ labels: c.labels, value: c.count, metricName: `${spec.name}_count` });
        }
        return { name: spec.name, help: spec.help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => {
        for (const c of children.all) {
          c.counts.fill(0);
          c.sum = 0;
          c.count = 0;
        }
      },
    });
  }

  observe(value: number, a: string, b?: string, c?: string, d?: string) {
    const child = this.children.get(a, b, c, d);
    const { buckets } = this;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= (buckets[i] as number)) {
        child.counts[i] = (child.counts[i] as number) + 1;
        break;
      }
    }
    child.sum += value;
    child.count++;
  }
}
