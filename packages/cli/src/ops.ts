import type { CliConfig } from './config.ts';
import { operator } from './dlq.ts';
import { CliError } from './http.ts';

/** Text the CLI prints as it is, instead of the JSON of a result. */
export class Printed {
  constructor(readonly text: string) {}
}

interface LagRow {
  group: string;
  topic: string;
  partition: number;
  committed: string | null;
  end: string;
  lag: number;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Consumer lag per group, topic and partition, then per group and in all (`--json`: the API's answer). */
export async function lagCommand(config: CliConfig, o: { group?: string; json: boolean }) {
  const query = o.group ? `?${new URLSearchParams({ group: o.group })}` : '';
  const answer = (await operator(config)('GET', `/api/ops/consumer-lag${query}`)) as { data: LagRow[]; total: number };
  if (o.json) return answer;
  const perGroup = new Map<string, number>();
  for (const r of answer.data) perGroup.set(r.group, (perGroup.get(r.group) ?? 0) + r.lag);
  const rows = answer.data.map((r) => [
    r.group,
    r.topic,
    String(r.partition),
    r.committed ?? '-',
    r.end,
    String(r.lag),
  ]);
  return new Printed(
    [
      table([['GROUP', 'TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG'], ...rows]),
      '',
      table([['GROUP', 'LAG'], ...[...perGroup].map(([g, n]) => [g, String(n)])]),
      '',
      `total lag: ${answer.total}`,
    ].join('\n'),
  );
}

/** Organizations (`orgs list`) and an operator's plan grant (`orgs set-plan <org id or slug> <plan>`). */
export async function orgsCommand(config: CliConfig, args: string[], o: { limit?: string }) {
  const call = operator(config);
  if (args[0] === 'list' && args.length === 1) {
    return call('GET', o.limit ? `/api/ops/orgs?${new URLSearchParams({ limit: o.limit })}` : '/api/ops/orgs');
  }
  if (args[0] === 'set-plan' && args.length === 3) {
    const [, org, plan] = args as [string, string, string];
    return call('PUT', `/api/ops/orgs/${encodeURIComponent(org)}/plan`, { plan });
  }
  throw new CliError('Usage: formgate orgs list [--limit <n>] | formgate orgs set-plan <org id or slug> <plan>');
}
