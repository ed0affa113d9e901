export { EmailCreateScreen as Component } from '../../../features/emails/email-create.tsx';
