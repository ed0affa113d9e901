// The services thread from source (ADR 77): TypeScript through tsx, registered in this thread whatever started the
// process (tsx, vitest or plain node). The production bundle runs `embedded-services.mjs` instead.
import { register } from 'tsx/esm/api';

register();
await import('./services-worker.ts');
