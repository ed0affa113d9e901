import { OrgSettingsSchema } from '@formgate/contracts';
import { AppError, identityOf, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import { z } from 'zod';
import type { AuditCursor, AuditEntry, OrgsStore } from '../store/orgs-store.ts';
import { orgNotFound, updateOrgSettings } from '../use-cases/update-org-settings.ts';

const PatchSettingsSchema = OrgSettingsSchema.strict();

const AuditLogQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
});

function scopeOf(req: Request) {
  return { orgId: identityOf(req).orgId };
}

const encodeCursor = (e: AuditEntry) => Buffer.from(JSON.stringify([e.occurredAt, e.id])).toString('base64url');

function decodeCursor(raw: string): AuditCursor {
  try {
    const [occurredAt, id] = z
      .tuple([z.string().max(40), z.string().max(200)])
      .parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
    return { occurredAt, id };
  } catch {
    throw new AppError('INVALID_CURSOR', 'The cursor is not valid', 400);
  }
}

/** `/api/v1/orgs`: the caller's organization's settings and audit log. */
export function orgsRoutes(deps: { store: OrgsStore }) {
  const { store } = deps;
  const router = Router();

  router.get('/settings', async (req, res) => {
    const settings = await store.getSettings(scopeOf(req));
    if (!settings) throw orgNotFound();
    res.json(settings);
  });

  router.patch('/settings', async (req, res) => {
    requirePermission(identityOf(req), { organization: ['update'] });
    res.json(await updateOrgSettings(store, scopeOf(req), PatchSettingsSchema.parse(req.body)));
  });

  router.get('/audit-log', async (req, res) => {
    requirePermission(identityOf(req), { organization: ['update'] });
    const { limit, cursor } = AuditLogQuerySchema.parse(req.query);
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await store.listAudit(scopeOf(req), { limit: limit + 1, ...(after ? { after } : {}) });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    res.json({
      data: page.map(({ id, type, actor, occurredAt, data }) => ({ id, type, actor, occurredAt, data })),
      nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
    });
  });

  return router;
}
