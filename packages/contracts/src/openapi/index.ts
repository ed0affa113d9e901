export * from './document.ts';
