import type { MessagePort } from 'node:worker_threads';
import type { EmbeddedConfig } from '../config.ts';

/** A secret as `embeddedSecret` answers it: the one in use and the one being rotated out. */
export interface ThreadSecret {
  current: string;
  previous?: string;
}

/**
 * What the main thread hands the services thread (`workerData`): the configuration, every secret already read or
 * created under `DATA_DIR` (so only the main thread ever writes those files), and the port its event log is served on.
 */
export interface ServicesThreadData {
  config: EmbeddedConfig;
  publicUrl: string;
  /** The identity codec's key: the gateway signs who is calling, the services verify it. */
  identitySecret: string;
  fileLinkSecret: ThreadSecret;
  notificationsLinkSecret: ThreadSecret;
  /** `serveBus` answers on the other end (`@formgate/bus/port`). */
  busPort: MessagePort;
}

/** The services the thread runs, each answering on its own loopback port. */
export const THREAD_SERVICES = ['forms', 'billing', 'orgs', 'notifications'] as const;
export type ThreadService = (typeof THREAD_SERVICES)[number];

/** Main thread → services thread. */
export type ToServices =
  | { type: 'stop' }
  | { type: 'health'; id: number; fresh: boolean }
  | { type: 'metrics'; id: number };

/** Services thread → main thread. */
export type FromServices =
  | { type: 'ready'; urls: Record<ThreadService, string> }
  | { type: 'failed'; message: string; stack?: string }
  | { type: 'stopped' }
  | { type: 'health'; id: number; ok: boolean }
  | { type: 'metrics'; id: number; json: unknown[] };
