export { PricingScreen as Component } from '../../features/billing/pricing.tsx';
