import { randomBytes, randomUUID } from 'node:crypto';
import { dlqTopic, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { WebhookReceiver } from '../../services/notifications/test/webhook-receiver.ts';
import { readTopicRecords } from './ledger/dlq.ts';
import { type ScenarioCluster, type ScenarioForm, sleep } from './scenario.ts';

/** The link every notification mail carries ends with the submission's id. */
const SUBMISSION_LINK = /\/submissions\/([A-Za-z0-9_-]+)/;

/** What a form's mails and webhooks came to, per submission, against what the ledger acked and the API lists. */
export interface EffectsTally {
  mails: number;
  webhooks: number;
  /** Acked ids never mailed / never sent to the webhook endpoint. */
  lostMails: string[];
  lostWebhooks: string[];
  /** Copies beyond the first of a submission's mail / webhook (I3: each effect once). */
  dupMails: number;
  dupWebhooks: number;
  /** Ids mailed or webhooked that the API does not list (a submission the client was never told of, or lost). */
  strayMails: string[];
  strayWebhooks: string[];
}

/**
 * Sets `form` up to mail a verified address of its own (over the cluster's SMTP server) and to call `receiver` for
 * every submission (an endpoint at a path of its own), and warms it up: a submission sent right after the settings
 * change may be planned without them (docs/notifications.md), so warm-up submissions go until one is both mailed and
 * webhooked; they are then deleted, so that the ledger's check sees only its own. Returns the form's tally.
 */
export async function watchEffects(env: ScenarioCluster, form: ScenarioForm, receiver: WebhookReceiver) {
  const { cluster } = env;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': form.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  const recipient = `effects-${randomBytes(4).toString('hex')}@example.com`;
  expect((await api('POST', '/api/v1/notification-emails', { email: recipient })).status).toBe(201);
  const link = new URL(await cluster.mailLink(recipient, /^Confirm /));
  expect((await fetch(`${cluster.baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' })).status).toBe(303);
  const patched = await api('PATCH', `/api/v1/forms/${form.id}`, {
    settings: { notifications: { enabled: true, emails: [recipient] } },
  });
  expect(patched.status).toBe(200);
  const hookPath = `/hook-${randomUUID()}`;
  // 404 until the notifications process's view of the forms has the new form.
  await eventually(async () => {
    const hook = { url: `${receiver.url}${hookPath}`, kind: 'standard', events: ['submission.created'] };
    expect((await api('POST', `/api/v1/forms/${form.id}/webhooks`, hook)).status).toBe(201);
  }, 30_000);

  /** Submission id → the Message-IDs of its mails / the `webhook-id`s of its requests, one entry per copy. */
  const mails = () => {
    const out = new Map<string, string[]>();
    for (const m of cluster.smtp.messages.filter((x) => x.to.includes(recipient))) {
      const id = SUBMISSION_LINK.exec(m.text)?.[1];
      if (id) out.set(id, [...(out.get(id) ?? []), m.headers['message-id'] ?? '']);
    }
    return out;
  };
  const webhooks = () => {
    const out = new Map<string, string[]>();
    for (const r of receiver.requests.filter((x) => x.url === hookPath)) {
      const id = (JSON.parse(r.body) as { data: { id: string } }).data.id;
      out.set(id, [...(out.get(id) ?? []), String(r.headers['webhook-id'])]);
    }
    return out;
  };

  const warmUps = new Set<string>();
  const warm = () => [...warmUps].some((id) => mails().has(id) && webhooks().has(id));
  for (let round = 0; !warm(); round++) {
    if (round > 60) throw new Error(`no warm-up submission of ${form.id} was both mailed and webhooked`);
    const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: 'sender@example.com', message: 'warm-up' }),
    });
    expect(res.status).toBe(200);
    warmUps.add(((await res.json()) as { id: string }).id);
    for (let i = 0; i < 30 && !warm(); i++) await sleep(100);
  }
  for (const id of warmUps) {
    // 404 until forms has stored it (it reads `ingest.submission` too).
    await eventually(async () => {
      expect((await api('DELETE', `/api/v1/forms/${form.id}/submissions/${id}`)).status).toBe(204);
    }, 30_000);
  }

  const tally = (acked: Set<string>, listed: Set<string>): EffectsTally => {
    const [m, w] = [mails(), webhooks()];
    for (const id of warmUps) for (const map of [m, w]) map.delete(id);
    const copies = (map: Map<string, string[]>) => [...map.values()].reduce((n, c) => n + c.length, 0);
    const extra = (map: Map<string, string[]>) => [...map.values()].reduce((n, c) => n + c.length - 1, 0);
    return {
      mails: copies(m),
      webhooks: copies(w),
      lostMails: [...acked].filter((id) => !m.has(id)),
      lostWebhooks: [...acked].filter((id) => !w.has(id)),
      dupMails: extra(m),
      dupWebhooks: extra(w),
      strayMails: [...m.keys()].filter((id) => !listed.has(id)),
      strayWebhooks: [...w.keys()].filter((id) => !listed.has(id)),
    };
  };
  return {
    orgId: String(patched.body.orgId),
    tally,
    /** The delivery log of each of `ids` (what the service knows of a lost one), one line each. */
    deliveryLogs: (ids: string[]) =>
      Promise.all(
        ids.map(async (id) => {
          const log = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`);
          return `${id}: ${log.status} ${JSON.stringify(log.body.data ?? log.body)}`;
        }),
      ),
    /** Waits until every acked id was mailed and webhooked, or until `deadline` (ms since the epoch). */
    async untilDelivered(acked: Set<string>, deadline: number) {
      const done = () => {
        const t = tally(acked, acked);
        return t.lostMails.length === 0 && t.lostWebhooks.length === 0;
      };
      while (!done() && Date.now() < deadline) await sleep(500);
    },
  };
}

/**
 * Dead letters of the form (`forms.form`, `forms.submission`, keyed by its id) and of its organization
 * (`notifications.delivery`, `billing.quota`, keyed by its id): what its submissions' mails, webhooks, billing and
 * counters write besides `ingest.submission` (whose dead letters the ledger checker reads). One line per letter.
 */
export async function relatedDeadLetters(brokers: string, formId: string, orgId: string) {
  const plan: [string, string][] = [
    [Topics.formsForm, formId],
    [Topics.formsSubmission, formId],
    [Topics.notificationsDelivery, orgId],
    [Topics.billingQuota, orgId],
  ];
  const found = await Promise.all(
    plan.map(async ([topic, key]) =>
      (await readTopicRecords(brokers.split(','), dlqTopic(topic), key)).map(
        (r) => `${dlqTopic(topic)}@${r.offset} by ${r.headers['x-group']} (${r.headers['x-error']})`,
      ),
    ),
  );
  return found.flat();
}
