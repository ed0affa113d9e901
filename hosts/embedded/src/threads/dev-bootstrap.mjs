// A thread of the embedded host from source (ADR 77): TypeScript through tsx, registered in this thread whatever
// started the process (tsx, vitest or plain node), then the thread's module (`workerData.module`). The production
// bundle starts each thread's own entry point instead (`embedded-services.mjs`, `embedded-log.mjs`).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
