import type { CliConfig } from './config.ts';
import { CliError, createClient } from './http.ts';

interface Options {
  topic?: string;
  from?: string;
  to?: string;
  offset?: string;
  limit?: string;
  all: boolean;
}

export function operator(config: CliConfig) {
  if (!config.FORMGATE_OPERATOR_TOKEN)
    throw new CliError('Set FORMGATE_OPERATOR_TOKEN (embedded mode: the contents of DATA_DIR/operator-token).');
  return createClient(config, { bearer: config.FORMGATE_OPERATOR_TOKEN });
}

function replayBody(o: Options) {
  if (o.all) return { all: true };
  if (o.offset) return { offsets: o.offset.split(',').map((s) => s.trim()) };
  if (o.from && o.to) return { from: o.from, to: o.to };
  throw new CliError('dlq replay needs --all, --offset <o>[,<o>...] or --from <o> --to <o>');
}

/** Dead letters through the operator API: counts per topic, a topic's list, and replay. */
export async function dlqCommand(config: CliConfig, command: 'counts' | 'list' | 'replay', o: Options) {
  const call = operator(config);
  if (command === 'counts') return call('GET', '/api/ops/dead-letters');
  if (!o.topic) throw new CliError(`dlq ${command} needs --topic <topic>`);
  const path = `/api/ops/dead-letters/${encodeURIComponent(o.topic)}`;
  if (command === 'replay') return call('POST', `${path}/replay`, replayBody(o));
  const query = new URLSearchParams();
  if (o.from) query.set('from', o.from);
  if (o.limit) query.set('limit', o.limit);
  return call('GET', query.size ? `${path}?${query}` : path);
}
