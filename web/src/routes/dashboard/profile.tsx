export { ProfileScreen as Component } from '../../features/account/profile.tsx';
