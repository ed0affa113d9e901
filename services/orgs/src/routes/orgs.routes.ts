import {
  type AuditChainPageDto,
  type AuditEntryDto,
  formatSettle,
  type OrgSettingsDto,
  SETTLE_HEADER,
} from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { identityOf, keysetCursor, mountRoute, readPage, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { AuditStore } from '../store/audit-store.ts';
import type { OrgSpamStore } from '../store/org-spam-store.ts';
import type { OrgsStore } from '../store/orgs-store.ts';
import type { AuditEntry } from '../store/records.ts';
import { orgNotFound, updateOrgSettings } from '../use-cases/update-org-settings.ts';
import { readSpamDefaults, updateSpamDefaults } from '../use-cases/update-spam-defaults.ts';

function scopeOf(req: Request) {
  return { orgId: identityOf(req).orgId };
}

const cursors = keysetCursor('occurredAt', 'id');
const toAuditDto = ({ id, type, actor, occurredAt, data, seq, prevHash, hash }: AuditEntry): AuditEntryDto => ({
  id,
  type,
  actor,
  occurredAt,
  data,
  seq,
  prevHash,
  hash,
});

/** `/api/v1/orgs`: the caller's organization's settings (with its spam defaults, issue 14) and audit log. */
export function orgsRoutes(deps: {
  orgs: OrgsStore;
  audit: AuditStore;
  spam: OrgSpamStore;
  onSpamChanged: () => Promise<boolean>;
}) {
  const { orgs, audit, spam: spamStore } = deps;
  const router = Router();

  mountRoute(router, API_ROUTES.getOrgSettings, async (req, res) => {
    const settings = await orgs.getSettings(scopeOf(req));
    if (!settings) throw orgNotFound();
    const body: OrgSettingsDto = { ...settings, spam: await readSpamDefaults(spamStore, scopeOf(req)) };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.updateOrgSettings, async (req, res) => {
    requirePermission(identityOf(req), { organization: ['update'] });
    const { spam, ...rest } = API_ROUTES.updateOrgSettings.request.body.parse(req.body ?? {});
    // The spam defaults first: a refused one (a captcha without its secret) changes nothing at all.
    let spamView = await readSpamDefaults(spamStore, scopeOf(req));
    if (spam !== undefined) {
      const changed = await updateSpamDefaults(deps, scopeOf(req), spam);
      spamView = changed.view;
      const { orgId } = scopeOf(req);
      res.setHeader(SETTLE_HEADER, formatSettle({ view: 'org-settings', id: orgId, version: changed.version }));
    }
    const settings = await updateOrgSettings(orgs, scopeOf(req), rest);
    const body: OrgSettingsDto = { ...settings, spam: spamView };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.listAuditLog, async (req, res) => {
    requirePermission(identityOf(req), { organization: ['update'] });
    const { limit, cursor, type, actor, from, to } = API_ROUTES.listAuditLog.request.query.parse(req.query);
    const after = cursor ? cursors.decode(cursor) : undefined;
    const filter = {
      ...(type ? { types: type } : {}),
      ...(actor ? { actorEmail: actor } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    };
    const read = (rows: number) => audit.listAudit(scopeOf(req), { limit: rows, filter, ...(after ? { after } : {}) });
    res.json(await readPage(limit, read, toAuditDto, cursors.encode));
  });

  mountRoute(router, API_ROUTES.readAuditChain, async (req, res) => {
    requirePermission(identityOf(req), { organization: ['update'] });
    const { after, limit } = API_ROUTES.readAuditChain.request.query.parse(req.query);
    const scope = scopeOf(req);
    const entries = await audit.readChain(scope, { afterSeq: after, limit });
    const body: AuditChainPageDto = {
      orgId: scope.orgId,
      data: entries.map(toAuditDto),
      next: entries.length === limit ? (entries.at(-1)?.seq ?? null) : null,
    };
    res.json(body);
  });

  return router;
}
