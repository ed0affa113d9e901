export { LoginEmailScreen as Component } from '../../features/session/login-email.tsx';
