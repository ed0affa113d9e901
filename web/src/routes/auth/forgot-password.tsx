export { ForgotPasswordScreen as Component } from '../../features/session/forgot-password.tsx';
