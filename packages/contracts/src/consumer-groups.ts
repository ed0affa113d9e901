import { type TopicName, Topics } from './topics.ts';

/** One consumer group of the deployment and the topic it reads (`<service>.<handler>`, see `SubscribeOptions`). */
export interface ConsumerGroupSpec {
  group: string;
  topic: TopicName;
}

/**
 * Every consumer group a Formgate deployment runs, whatever its mode: what `formgate lag` and
 * `GET /api/ops/consumer-lag` report on. A unit test (`consumer-groups.unit.test.ts`) keeps it equal to the groups the
 * services subscribe, so a new consumer cannot be left out. Group-less readers (`replay()` of compacted topics) have
 * no offsets and no lag here.
 */
export const CONSUMER_GROUPS: readonly ConsumerGroupSpec[] = [
  { group: 'forms.submission-received', topic: Topics.ingestSubmission },
  { group: 'forms.submission-counts', topic: Topics.formsSubmission },
  { group: 'forms.blocked-counts', topic: Topics.ingestAbuse },
  { group: 'forms.quota-release', topic: Topics.billingQuota },
  { group: 'forms.org-purge', topic: Topics.orgsOrganization },
  { group: 'forms.content-drop', topic: Topics.notificationsDelivery },
  { group: 'forms.file-scan', topic: Topics.ingestSubmission },
  { group: 'billing.usage', topic: Topics.ingestSubmission },
  { group: 'billing.releases', topic: Topics.formsSubmission },
  { group: 'billing.subscriptions', topic: Topics.billingSubscription },
  { group: 'billing.org-purge', topic: Topics.orgsOrganization },
  { group: 'billing.storage', topic: Topics.ingestSubmission },
  { group: 'billing.storage-deletions', topic: Topics.formsSubmission },
  { group: 'billing.storage-forms', topic: Topics.formsForm },
  { group: 'billing.emails', topic: Topics.notificationsDelivery },
  { group: 'notifications.recipients-org', topic: Topics.orgsOrganization },
  { group: 'notifications.forms-view', topic: Topics.formsForm },
  { group: 'notifications.submission-changes', topic: Topics.formsSubmission },
  { group: 'notifications.webhooks', topic: Topics.ingestSubmission },
  { group: 'notifications.deliveries', topic: Topics.ingestSubmission },
  { group: 'orgs.lifecycle', topic: Topics.orgsOrganization },
  { group: 'accounts.quota-warnings', topic: Topics.billingQuota },
];
