import { OrgSettingsSchema } from '@formgate/contracts';
import { identityOf, keysetCursor, PageQuerySchema, readPage, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { AuditEntry, OrgsStore } from '../store/orgs-store.ts';
import { orgNotFound, updateOrgSettings } from '../use-cases/update-org-settings.ts';

const PatchSettingsSchema = OrgSettingsSchema.strict();

function scopeOf(req: Request) {
  return { orgId: identityOf(req).orgId };
}

const cursors = keysetCursor('occurredAt', 'id');
const toAuditDto = ({ id, type, actor, occurredAt, data }: AuditEntry) => ({ id, type, actor, occurredAt, data });

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
    const { limit, cursor } = PageQuerySchema.parse(req.query);
    const after = cursor ? cursors.decode(cursor) : undefined;
    const read = (rows: number) => store.listAudit(scopeOf(req), { limit: rows, ...(after ? { after } : {}) });
    res.json(await readPage(limit, read, toAuditDto, cursors.encode));
  });

  return router;
}
