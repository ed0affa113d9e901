export { SubmissionsIndexScreen as Component } from '../../../../../features/submissions/submissions-index.tsx';
