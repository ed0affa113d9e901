export { SignUpScreen as Component } from '../../features/session/sign-up.tsx';
