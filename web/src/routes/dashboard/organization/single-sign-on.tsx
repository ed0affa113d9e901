export { SingleSignOnScreen as Component } from '../../../features/sso/single-sign-on.tsx';
