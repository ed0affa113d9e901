export { SubmissionDetailScreen as Component } from '../../../../../features/submissions/submission-detail.tsx';
