export * from './autoresponse.tsx';
export * from './composer.ts';
export type { SubmissionMailPurpose } from './headers.ts';
export { DEFAULT_SUBJECT_TEMPLATE, renderSubject, submissionMessageId, submitterAddress } from './headers.ts';
export * from './recipient-verification.tsx';
export * from './submission-notification.tsx';
export { MAX_FIELDS, MAX_VALUE_LENGTH, submissionUrl } from './submission-view.ts';
