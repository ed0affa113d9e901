export * from './file-mailer.ts';
export * from './links.ts';
export * from './mailer.ts';
export * from './smtp-mailer.ts';
