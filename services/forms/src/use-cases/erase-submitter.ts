import type { ErasureReceipt, OrgScope, SignedErasureReceipt } from '@formgate/contracts';
import type { Clock, Identity, Ids, Logger, PrivacyKeys } from '@formgate/kit';
import { addressesOf } from '../privacy/addresses.ts';
import type { Erasures } from '../store/erasures.ts';
import type { SubmissionChanges } from '../store/submission-changes.ts';

export interface ErasureDeps {
  erasures: Erasures;
  changes: SubmissionChanges;
  privacy: PrivacyKeys;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** Called after changes were stored, so the outbox relay publishes them (and deletes their files) promptly. */
  onSubmissionChanged: () => void;
}

/** Submissions indexed per batch by `indexPendingAddresses`. */
const INDEX_BATCH = 500;

/**
 * Indexes the addresses of every submission stored without them (stored before the index was kept); answers how
 * many it indexed. Run at start and before each erasure, so an erasure misses none. Safe to run concurrently (the
 * keys of a submission are the same whoever computes them).
 */
export async function indexPendingAddresses(deps: Pick<ErasureDeps, 'erasures' | 'privacy'>): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = await deps.erasures.listUnindexed(INDEX_BATCH);
    if (batch.length === 0) return total;
    await deps.erasures.indexAddresses(
      batch.map((s) => ({
        id: s.id,
        orgId: s.orgId,
        keys: addressesOf(s.fields, s.meta).map(deps.privacy.addressKey),
      })),
    );
    total += batch.length;
  }
}

/**
 * Erases every submission of the organization in which `email` appears (issue 31): each is deleted as `erase`
 * (fields, files, reserved fields, search terms and address keys go; its `submission.deleted` event carries the
 * erasure's id, so notifications erase their copies), then the receipt is signed and kept. An erasure cut short
 * by a crash leaves what it erased erased, with no receipt; asking again erases the rest and receipts that.
 */
export async function eraseSubmitter(
  deps: ErasureDeps,
  identity: Pick<Identity, 'orgId' | 'userId' | 'via'>,
  email: string,
): Promise<SignedErasureReceipt> {
  const scope: OrgScope = { orgId: identity.orgId };
  await indexPendingAddresses(deps);
  const found = await deps.erasures.findByAddressKeys(scope, deps.privacy.addressKeys(email));
  const erasure = deps.ids.next();
  const erased: ErasureReceipt['submissions'] = [];
  try {
    for (const s of found) {
      const change = { id: deps.ids.next(), occurredAt: deps.clock.now().toISOString(), erasure };
      const result = await deps.changes.changeSubmission(scope, s.formId, s.id, 'erase', change);
      if (result === 'changed') erased.push({ id: s.id, formId: s.formId, receivedAt: s.createdAt });
    }
  } finally {
    if (erased.length > 0) deps.onSubmissionChanged();
  }
  const receipt: ErasureReceipt = {
    type: 'erasure-receipt/1',
    id: erasure,
    orgId: identity.orgId,
    requestedBy: { id: identity.userId, via: identity.via },
    addressKey: deps.privacy.addressKey(email),
    erasedAt: deps.clock.now().toISOString(),
    count: erased.length,
    forms: [...new Set(erased.map((s) => s.formId))],
    submissions: erased,
  };
  const signed = deps.privacy.sign(receipt);
  await deps.erasures.saveReceipt(signed);
  // Never the address: who asked, and its keyed hash.
  deps.logger.info(
    { erasure, orgId: identity.orgId, requestedBy: receipt.requestedBy, count: erased.length },
    'submissions erased by submitter',
  );
  return signed;
}
