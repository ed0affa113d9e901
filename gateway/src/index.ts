export * from './config.ts';
export * from './create-gateway.ts';
export * from './operator.routes.ts';
export * from './routes.ts';
export * from './site-config.ts';
export * from './site-forms.ts';
