export { LoginScreen as Component } from '../../features/session/login.tsx';
