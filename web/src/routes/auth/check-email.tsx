export { CheckEmailScreen as Component } from '../../features/session/check-email.tsx';
