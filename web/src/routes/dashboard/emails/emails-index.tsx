export { EmailsIndexScreen as Component } from '../../../features/emails/emails-index.tsx';
