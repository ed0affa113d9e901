export { TermsScreen as Component } from '../../features/site/terms.tsx';
