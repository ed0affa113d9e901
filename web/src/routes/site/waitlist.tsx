export { WaitlistScreen as Component } from '../../features/site/waitlist.tsx';
