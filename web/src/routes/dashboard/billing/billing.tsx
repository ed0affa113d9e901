export { BillingScreen as Component } from '../../../features/billing/billing.tsx';
