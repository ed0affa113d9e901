import { topicPrefixProblem } from '@formgate/contracts';

/**
 * A deployment's namespace on a shared Kafka cluster (`KAFKA_TOPIC_PREFIX`, ADR 53): everything that names broker-side
 * state — topics (with their `.dlq` and `.dlq.replayed`), consumer group ids, replay groups — is the logical name
 * with the prefix in front. Only the Kafka adapter sees physical names: the `EventBus` port, its callers, lag rows,
 * dead letters and metric labels keep logical ones. The producer is idempotent without a transactional id, so
 * there is nothing else to name.
 */
export interface Namespace {
  readonly prefix: string;
  /** The broker's name of logical topic `topic`. */
  topic(topic: string): string;
  /** The broker's id of logical consumer group `group`. */
  group(group: string): string;
}

export function createNamespace(prefix = ''): Namespace {
  const problem = topicPrefixProblem(prefix);
  if (problem) throw new Error(`invalid Kafka topic prefix ${JSON.stringify(prefix)}: ${problem}`);
  return { prefix, topic: (t) => prefix + t, group: (g) => prefix + g };
}
