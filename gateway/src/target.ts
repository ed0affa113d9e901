import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settle } from '@formgate/contracts';
import type { Express } from 'express';

/** A service the gateway forwards to: in the same process (embedded), or over HTTP (distributed). */
export type Target =
  | {
      kind: 'in-process';
      app: Express;
      handle?: (req: IncomingMessage, res: ServerResponse) => void;
      /** Ingest's and notifications': whether their views hold a change of settings (`createSettleAll`). */
      settled?: (settle: Settle) => Promise<boolean>;
    }
  | {
      kind: 'http';
      urls: string[];
      /** Names that resolve to every instance, to settle a change on each (ingest; default: `urls`). */
      peers?: string[];
    };
