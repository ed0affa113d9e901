import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import { CLIENT_IP_HEADER } from '@formgate/accounts';
import type { ServiceName } from '@formgate/contracts/routes';
import { IDENTITY_HEADER, type Logger } from '@formgate/kit';
import type { NextFunction, Request, Response } from 'express';
import { createApiProxy } from './api-proxy.ts';
import { createRawProxy } from './raw-proxy.ts';
import { createSettleAll, holdUntilSettled, type SettleAll, settleOf } from './settle.ts';
import type { Target } from './target.ts';
import { createUpstreamPool, type PoolHealth, type UpstreamPool } from './upstreams.ts';

export type Forward = (req: Request, res: Response, next: NextFunction) => void;
export type IngestHandler = (req: IncomingMessage, res: ServerResponse, forwarded: Record<string, string>) => void;

export interface ForwardSettings {
  agent: Agent;
  logger: Logger;
  /** Deadline for an API service's response headers. */
  upstreamTimeoutMs: number;
  /** Deadline for ingest's: its answer waits for the log's acknowledgement, so it gets longer. */
  ingestTimeoutMs: number;
}

function apiForward(pool: UpstreamPool, s: ForwardSettings, settleAll: SettleAll): Forward {
  const beforeRelay = (answer: IncomingMessage) => {
    const settle = settleOf(answer);
    return settle ? settleAll(settle) : undefined;
  };
  const proxy = createApiProxy({ pool, ...s, timeoutMs: s.upstreamTimeoutMs, beforeRelay });
  return (req, res, next) => {
    delete req.headers.cookie;
    const ip = String(req.headers[CLIENT_IP_HEADER] ?? '');
    const forwarded: Record<string, string> = { 'x-forwarded-for': ip, [CLIENT_IP_HEADER]: ip };
    if (req.requestId) forwarded['x-request-id'] = req.requestId;
    if (req.identityToken) forwarded[IDENTITY_HEADER] = req.identityToken;
    proxy(req, res, forwarded, next);
  };
}

/**
 * Turns the gateway's targets into handlers: in-process services are called directly; each HTTP service gets one
 * upstream pool (ADR 16), shared by its `/api` forwarder (http-proxy-middleware, `api-proxy.ts`) and, for ingest, by
 * the streaming `/f/*` proxy (`raw-proxy.ts`, measurably faster there: ADR 100). An API answer
 * naming a change of settings (`SETTLE_HEADER`) is held until every ingest instance has it (`settle.ts`).
 */
export function createForwarders(targets: Partial<Record<ServiceName, Target>>, s: ForwardSettings) {
  const forwards = new Map<ServiceName, Forward>();
  const pools: UpstreamPool[] = [];
  let ingest: IngestHandler | undefined;
  const settleAll = createSettleAll({ ingest: targets.ingest, notifications: targets.notifications }, s.logger);
  for (const [name, target] of Object.entries(targets) as [ServiceName, Target][]) {
    if (target.kind === 'in-process') {
      const handle = target.handle ?? target.app;
      // Only a change can name one to settle: reads go straight through.
      const settling: Forward = (req, res) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') holdUntilSettled(res, settleAll);
        handle(req, res);
      };
      forwards.set(name, name === 'ingest' ? (req, res) => handle(req, res) : settling);
      if (name === 'ingest') ingest = (req, res) => handle(req, res);
      continue;
    }
    const pool = createUpstreamPool(name, target.urls, { logger: s.logger });
    pools.push(pool);
    forwards.set(name, apiForward(pool, s, settleAll));
    if (name === 'ingest') ingest = createRawProxy({ pool, ...s, timeoutMs: s.ingestTimeoutMs });
  }
  const health = (): Record<string, PoolHealth> => Object.fromEntries(pools.map((p) => [p.name, p.health()]));
  return { forwards, ingest, health };
}
