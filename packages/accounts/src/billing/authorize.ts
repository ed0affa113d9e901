import { authorize, ERROR_CODES } from '@formgate/contracts';
import { APIError } from 'better-auth/api';

/** The stripe plugin's actions (its `AuthorizeReferenceAction`). */
export type BillingAction =
  | 'upgrade-subscription'
  | 'list-subscription'
  | 'cancel-subscription'
  | 'restore-subscription'
  | 'billing-portal';

interface MemberFinder {
  findOne<T>(input: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
}

const denied = (message: string) => new APIError('FORBIDDEN', { code: 'BILLING_NOT_ALLOWED', message });

/**
 * The stripe plugin's `authorizeReference` for organization subscriptions (the reference is the organization id):
 * any member may list the organization's subscriptions; only those whose role may update the organization (owners
 * and admins) may upgrade, cancel, restore or open the billing portal. Denials are 403 `BILLING_NOT_ALLOWED` (the
 * plugin's own denial would be a 401, which means "sign in" everywhere else in Formgate).
 */
export async function authorizeBilling(
  db: MemberFinder,
  userId: string,
  orgId: string,
  action: BillingAction,
): Promise<true> {
  const member = await db.findOne<{ role: string }>({
    model: 'member',
    where: [
      { field: 'organizationId', value: orgId },
      { field: 'userId', value: userId },
    ],
  });
  if (!member) throw denied('You are not a member of this organization');
  if (action === 'list-subscription') return true;
  if (!authorize(member.role.split(','), { organization: ['update'] }).success)
    throw denied(ERROR_CODES.BILLING_NOT_ALLOWED.message);
  return true;
}
