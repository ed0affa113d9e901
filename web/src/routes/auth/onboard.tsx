export { OnboardScreen as Component } from '../../features/session/onboard.tsx';
