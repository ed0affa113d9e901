export { FormsIndexScreen as Component } from '../../../features/forms/forms-index.tsx';
