export * from './add-notification-email.ts';
export * from './org-events.handler.ts';
export * from './recipients.routes.ts';
export * from './verification-token.ts';
