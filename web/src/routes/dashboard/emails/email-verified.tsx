export { EmailVerifiedScreen as Component } from '../../../features/emails/email-verified.tsx';
