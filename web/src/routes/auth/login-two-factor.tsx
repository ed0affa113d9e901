export { TwoFactorScreen as Component } from '../../features/session/two-factor-sign-in.tsx';
