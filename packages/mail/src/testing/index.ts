export * from './parse-mail.ts';
export * from './smtp-test-server.ts';
