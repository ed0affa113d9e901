export { PrivacyScreen as Component } from '../../../features/privacy/privacy.tsx';
