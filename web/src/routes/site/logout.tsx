export { LogoutScreen as Component } from '../../features/session/logout.tsx';
