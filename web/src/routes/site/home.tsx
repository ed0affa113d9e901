export { HomeScreen as Component } from '../../features/site/home.tsx';
