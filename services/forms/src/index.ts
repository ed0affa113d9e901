export * from './create-service.ts';
export { encodeCursor } from './routes/submission-cursor.ts';
export * from './store/forms-store.ts';
export * from './store/sqlite-forms-store.ts';
export * from './store/submission-record.ts';
