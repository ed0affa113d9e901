/** Every topic Formgate uses, its key and whether the log keeps only the latest record per key. */
export interface TopicSpec {
  name: string;
  /** Compacted topics keep at least the latest record per key and are replayed from the start to build views. */
  compacted: boolean;
  partitions: number;
  /**
   * How long a non-compacted topic keeps its records, when shorter than the log's default (7 days): for topics read
   * from the start without a group on every start (`ingest.abuse`), so what is read stays bounded, and for those
   * holding personal data (`SUBMISSION_LOG_RETENTION_MS`), whose dead letters then expire as well.
   */
  retentionMs?: number;
}

export const Topics = {
  formsForm: 'forms.form',
  ingestSubmission: 'ingest.submission',
  billingQuota: 'billing.quota',
  /** `subscription.changed` from the gateway's stripe plugin, keyed by orgId. */
  billingSubscription: 'billing.subscription',
  orgsOrganization: 'orgs.organization',
  /** Changes made to stored submissions through the API (deleted, marked spam / not spam), keyed by form id. */
  formsSubmission: 'forms.submission',
  /** Outcomes of email and webhook deliveries (`delivery.succeeded` / `delivery.failed`) and deferrals (`delivery.deferred`), keyed by orgId. */
  notificationsDelivery: 'notifications.delivery',
  /**
   * What ingest instances tell each other and forms about abuse (issue 14): rate-limit counts, ALTCHA solutions
   * used, and blocked requests per form. Keyed by the publishing instance.
   */
  ingestAbuse: 'ingest.abuse',
  /** An organization's settings that other services need (the spam defaults), compacted by orgId. */
  orgsSettings: 'orgs.settings',
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

/**
 * How long the topics that carry submissions' contents or submitters' addresses keep a record (issue 31,
 * `docs/privacy.md`): an erasure cannot rewrite Kafka's records, so this bounds how long they outlive it. With
 * Kafka's segments rolled every sixth of it (a day), no record is kept more than 7 days after it was written, and
 * their dead letters (`.dlq`) no longer either. The embedded log erases them at once.
 */
export const SUBMISSION_LOG_RETENTION_MS = 6 * 24 * 3_600_000;

export const TOPIC_SPECS: readonly TopicSpec[] = [
  { name: Topics.formsForm, compacted: true, partitions: 3 },
  { name: Topics.ingestSubmission, compacted: false, partitions: 6, retentionMs: SUBMISSION_LOG_RETENTION_MS },
  { name: Topics.billingQuota, compacted: true, partitions: 3 },
  { name: Topics.billingSubscription, compacted: false, partitions: 3 },
  { name: Topics.orgsOrganization, compacted: false, partitions: 3 },
  { name: Topics.formsSubmission, compacted: false, partitions: 6, retentionMs: SUBMISSION_LOG_RETENTION_MS },
  { name: Topics.notificationsDelivery, compacted: false, partitions: 3, retentionMs: SUBMISSION_LOG_RETENTION_MS },
  { name: Topics.ingestAbuse, compacted: false, partitions: 1, retentionMs: 3_600_000 },
  { name: Topics.orgsSettings, compacted: true, partitions: 3 },
];

export const dlqTopic = (topic: string): string => `${topic}.dlq`;

/** Which dead letters of `topic` were replayed: one record per replayed dead letter, keyed by its `.dlq` offset. */
export const dlqReplayedTopic = (topic: string): string => `${dlqTopic(topic)}.replayed`;

/** Kafka's longest topic name. */
const MAX_KAFKA_TOPIC_LENGTH = 249;
/** The longest physical name a topic plan makes of a topic: `<topic>.dlq.replayed`. */
const LONGEST_SUFFIX = dlqReplayedTopic('').length;

/**
 * The longest deployment namespace (`KAFKA_TOPIC_PREFIX`, ADR 53): the prefix, the longest topic of the plan and
 * `.dlq.replayed` fit in Kafka's 249 characters.
 */
export const MAX_TOPIC_PREFIX_LENGTH =
  MAX_KAFKA_TOPIC_LENGTH - Math.max(...TOPIC_SPECS.map((s) => s.name.length)) - LONGEST_SUFFIX;

/** Why `prefix` cannot be a deployment's topic namespace, or undefined when it can (empty: no namespace). */
export function topicPrefixProblem(prefix: string): string | undefined {
  if (!/^[a-zA-Z0-9._-]*$/.test(prefix)) return 'only Kafka topic characters: letters, digits, ".", "_" and "-"';
  if (prefix.length > MAX_TOPIC_PREFIX_LENGTH) return `at most ${MAX_TOPIC_PREFIX_LENGTH} characters`;
  return undefined;
}
