export { SubmissionsLayout as Component } from '../../../../../features/submissions/submissions-layout.tsx';
