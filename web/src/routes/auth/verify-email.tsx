export { VerifyEmailScreen as Component } from '../../features/session/verify-email.tsx';
