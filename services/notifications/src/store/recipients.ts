import type { AddRecipientResult, MailClaim, MailCounter, MailPolicy, Recipient } from './records.ts';

/**
 * The organizations' notification addresses (double opt-in). Guarantees every adapter keeps:
 * - Every call is scoped to one organization: nothing of another organization is read, changed or deleted.
 * - Addresses are stored lower-cased and unique per organization, case-insensitively; the same address may exist in
 *   several organizations, each with its own id and state.
 * - `add` creates only below `limit` addresses. The count is checked before the insert, so concurrent adds may pass
 *   it together (at most by the number of adds racing).
 * - `markVerified` changes only the address with that id *and* that email (a link to a removed and re-added address
 *   does nothing); verifying again keeps the first `verifiedAt`.
 * - `listVerified` returns only verified addresses: the delivery pipeline mails nobody else.
 * - `claimVerificationMail` counts mails per (organization, address), and the count outlives `remove` (removing and
 *   re-adding an address does not reset it). Concurrent claims never both pass where one alone was allowed.
 * - `purgeOrganization` deletes the organization's addresses, mail counts and name; repeating it is harmless.
 */
export interface RecipientStore {
  /** Oldest first. */
  list(scope: { orgId: string }): Promise<Recipient[]>;
  get(scope: { orgId: string }, id: string): Promise<Recipient | null>;
  add(
    scope: { orgId: string },
    input: { id: string; email: string; createdAt: Date; verifiedAt: Date | null },
    options: { limit: number },
  ): Promise<AddRecipientResult>;
  /** The verified address, or null when no address has that id and email. */
  markVerified(scope: { orgId: string }, input: { id: string; email: string; at: Date }): Promise<Recipient | null>;
  /** False when there was no such address. */
  remove(scope: { orgId: string }, id: string): Promise<boolean>;
  /** The verified addresses of the organization, lower-cased, in no particular order. */
  listVerified(orgId: string): Promise<string[]>;
  /** Records a verification mail to `email` if `policy` allows one at `now`; otherwise says when one will be. */
  claimVerificationMail(scope: { orgId: string }, email: string, now: Date, policy: MailPolicy): Promise<MailClaim>;
  /** The organization's name as last published on `orgs.organization`, for the verification mail. */
  setOrgName(orgId: string, name: string): Promise<void>;
  getOrgName(orgId: string): Promise<string | null>;
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}

/** The counter after one more mail at `now`, or when the next mail may go (shared by the adapters). */
export function nextMailCounter(
  current: MailCounter | null,
  now: Date,
  policy: MailPolicy,
): { next: MailCounter } | { retryAt: Date } {
  const t = now.getTime();
  if (!current || current.windowStart.getTime() + policy.windowMs <= t) {
    if (current && current.lastSentAt.getTime() + policy.minIntervalMs > t) {
      return { retryAt: new Date(current.lastSentAt.getTime() + policy.minIntervalMs) };
    }
    return { next: { windowStart: now, sentInWindow: 1, lastSentAt: now } };
  }
  if (current.sentInWindow >= policy.maxPerWindow) {
    return { retryAt: new Date(current.windowStart.getTime() + policy.windowMs) };
  }
  if (current.lastSentAt.getTime() + policy.minIntervalMs > t) {
    return { retryAt: new Date(current.lastSentAt.getTime() + policy.minIntervalMs) };
  }
  return { next: { windowStart: current.windowStart, sentInWindow: current.sentInWindow + 1, lastSentAt: now } };
}

/** The part of the recipients the delivery pipeline reads: an organization's verified addresses. */
export type VerifiedRecipients = Pick<RecipientStore, 'listVerified'>;
