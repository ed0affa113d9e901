import type { ErasureReceipt, OrgScope, SignedErasureReceipt } from '@formgate/contracts';
import type { Clock, Identity, Ids, Logger, PrivacyKeys } from '@formgate/kit';
import type { Erasures } from '../store/erasures.ts';
import type { SubmissionChanges } from '../store/submission-changes.ts';

/**
 * What the deployment does once an erasure's changes are published, so that no copy of the erased submissions is
 * left where it can reach: embedded mode waits for its consumers to erase theirs (notifications' copies), erases
 * the log's records of them and checkpoints every file (`hosts/embedded`). Resolves when done; absent: nothing.
 */
export type ErasureSweep = (erased: {
  erasure: string;
  submissionIds: string[];
  /** The earliest `receivedAt` of them: nothing written before it can hold them. */
  receivedSince: string;
}) => Promise<void>;

export interface ErasureDeps {
  erasures: Erasures;
  changes: SubmissionChanges;
  privacy: PrivacyKeys;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /**
   * Runs the outbox relay (it deletes the erased submissions' files, then publishes their changes); resolves true
   * once everything stored before the call is published.
   */
  publishChanges: () => Promise<boolean>;
  sweep?: ErasureSweep;
}

/** The copies of what was erased, wherever the deployment can reach them (`ErasureSweep`); failures are logged. */
async function sweep(deps: ErasureDeps, erasure: string, erased: ErasureReceipt['submissions']) {
  try {
    await deps.erasures.compact();
    if (!(await deps.publishChanges())) throw new Error('the erased submissions could not be published yet');
    const [receivedSince = ''] = erased.map((s) => s.receivedAt).sort();
    await deps.sweep?.({ erasure, submissionIds: erased.map((s) => s.id), receivedSince });
  } catch (err) {
    // The submissions are erased here; their copies elsewhere go when the relay and the consumers catch up.
    deps.logger.warn({ err, erasure }, 'erased, but the copies of the submissions could not all be swept yet');
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
    if (erased.length > 0) void deps.publishChanges();
  }
  if (erased.length > 0) await sweep(deps, erasure, erased);
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
  // Its audit entry (`erasure.completed`) goes out with the relay's next run.
  void deps.publishChanges();
  // Never the address: who asked, and its keyed hash.
  deps.logger.info(
    { erasure, orgId: identity.orgId, requestedBy: receipt.requestedBy, count: erased.length },
    'submissions erased by submitter',
  );
  return signed;
}
