export * from './channels/index.ts';
export { webhooksAllowPrivateTargetsEnv } from './config.ts';
export * from './create-service.ts';
export * from './email/composer.ts';
export type { KeptMail } from './email/kept-mail.ts';
export * from './recipients/index.ts';
export * from './store/index.ts';
export * from './store/sqlite/index.ts';
