export * from './add-notification-email.ts';
export * from './org-events.handler.ts';
export * from './recipient-store.ts';
export * from './recipients.routes.ts';
export * from './sqlite-recipient-store.ts';
export * from './verification-token.ts';
