export { SubmissionReceivedScreen as Component } from '../../features/site/submission-received.tsx';
