export { ResetPasswordScreen as Component } from '../../features/session/reset-password.tsx';
