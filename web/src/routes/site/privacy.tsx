export { PrivacyScreen as Component } from '../../features/site/privacy.tsx';
