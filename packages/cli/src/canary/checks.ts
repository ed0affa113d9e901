import type { DeliveryDto, SubmissionDto } from '@formgate/client';
import type { ExpectedWebhook } from './plan.ts';

export type CheckName = 'stored' | 'mailed' | 'webhooked';

/**
 * Where a check stands at one look: `waiting` may still pass at a later look, `failed` cannot (a final delivery
 * failure, a disabled endpoint, a submission stored as spam), so the run need not wait for its deadline.
 */
export interface Verdict {
  state: 'waiting' | 'passed' | 'failed';
  detail: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A delivery's status in words: attempts and the last response's code, never its text (the receiver's words). */
function describe(d: DeliveryDto): string {
  const last = d.lastResponse ? `, last ${d.lastResponse.code}` : '';
  return `${d.status} (${plural(d.attempts, 'attempt')}${last})`;
}

/** The verdict over one delivery per expected target: passed when all succeeded, failed when one failed for good. */
function judgeTargets(targets: { name: string; delivery: DeliveryDto | undefined; refused?: string }[]): Verdict {
  const failed = targets.flatMap((t) =>
    t.refused
      ? [`${t.name}: ${t.refused}`]
      : t.delivery?.status === 'failed'
        ? [`${t.name}: ${describe(t.delivery)}`]
        : [],
  );
  if (failed.length) return { state: 'failed', detail: failed.join('; ') };
  const open = targets.filter((t) => t.delivery?.status !== 'succeeded');
  if (open.length === 0) return { state: 'passed', detail: plural(targets.length, 'delivery', 'deliveries') };
  return {
    state: 'waiting',
    detail: open.map((t) => `${t.name}: ${t.delivery ? describe(t.delivery) : 'no delivery planned'}`).join('; '),
  };
}

/** Stored: present, and neither spam nor held (neither is notified, so nothing else could pass). */
export function judgeStored(submission: SubmissionDto): Verdict {
  if (submission.spam) {
    const rules = submission.spamReasons.map((r) => `${r.layer}/${r.rule}`).join(', ');
    return { state: 'failed', detail: `stored as spam (${rules}): spam is never mailed` };
  }
  if (submission.held) return { state: 'failed', detail: "held: the organization's monthly quota is used up" };
  return { state: 'passed', detail: `submission ${submission.id}` };
}

/** Mailed: a `notification` email to every verified address of the form succeeded (resends are not counted). */
export function judgeEmails(addresses: string[], deliveries: DeliveryDto[]): Verdict {
  const mails = deliveries.filter((d) => d.channel === 'email' && d.purpose === 'notification' && !d.resendOf);
  return judgeTargets(
    addresses.map((address) => ({
      name: address,
      delivery: mails.find((d) => d.target.toLowerCase() === address),
    })),
  );
}

/** Webhooked: a delivery to every subscribed endpoint succeeded; a disabled endpoint is a failure at once. */
export function judgeWebhooks(endpoints: ExpectedWebhook[], deliveries: DeliveryDto[]): Verdict {
  const calls = deliveries.filter((d) => d.channel === 'webhook' && !d.resendOf);
  return judgeTargets(
    endpoints.map((e) => ({
      name: `webhook ${e.id}`,
      delivery: calls.find((d) => d.targetId === e.id),
      ...(e.enabled ? {} : { refused: `endpoint disabled (${e.disabledReason ?? 'no reason given'})` }),
    })),
  );
}
