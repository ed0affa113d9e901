/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

/**
 * Parses the text exposition format (0.0.4) strictly: every line is a comment (`# HELP`, `# TYPE`), blank, or a
 * well-formed sample; anything else throws, so a test proves a scrape would parse.
 */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '' || line.startsWith('#')) {
      if (line.startsWith('# ') && !/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) {
        throw new Error(`line ${i + 1}: bad comment: ${line}`);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a sample: ${line}`);
    const [, name = '', rawLabels = '', rawValue = ''] = m;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < rawLabels.length) {
      const at = LABEL.lastIndex;
      const l = LABEL.exec(rawLabels);
      if (!l || l.index !== at) throw new Error(`line ${i + 1}: bad labels: ${rawLabels}`);
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes `Nan`).
    const value = /^\+?inf$/i.test(rawValue) ? Infinity : /^-inf$/i.test(rawValue) ? -Infinity : Number(rawValue);
    if (Number.isNaN(value) && !/^nan$/i.test(rawValue)) throw new Error(`line ${i + 1}: bad value: ${rawValue}`);
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samplesOf(samples, name, labels).reduce((sum, s) => sum + s.value, 0);
}
