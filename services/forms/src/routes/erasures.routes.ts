import type { ErasureKeysDto, ErasureSummary } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, mountRoute, type PrivacyKeys, requirePermission } from '@formgate/kit';
import { Router } from 'express';
import type { ExportAudit } from '../export-audit.ts';
import { type ErasureDeps, eraseSubmitter } from '../use-cases/erase-submitter.ts';
import { type SubjectAccessDeps, subjectAccess } from '../use-cases/subject-access.ts';

/** `GET /api/v1/erasures/keys`: public, so anyone holding a receipt can verify it. */
export function erasureKeyRoutes(privacy: PrivacyKeys) {
  const router = Router();
  mountRoute(router, API_ROUTES.getErasureKeys, (_req, res) => {
    const body: ErasureKeysDto = { keys: privacy.publicKeys() };
    res.json(body);
  });
  return router;
}

/**
 * `/api/v1/erasures`: erasure by submitter and its receipts, and `/api/v1/subject-access`, in the caller's
 * organization (owners and admins).
 */
export function erasureRoutes(deps: ErasureDeps & SubjectAccessDeps & { auditExport: ExportAudit }) {
  const router = Router();
  mountRoute(router, API_ROUTES.getSubjectAccess, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { erasure: ['read'] });
    const { email } = API_ROUTES.getSubjectAccess.request.body.parse(req.body);
    res.setHeader('cache-control', 'private, no-store');
    const found = await subjectAccess(deps, { orgId: identity.orgId }, email);
    await deps.auditExport(identity, {
      kind: 'subject-access',
      addressKey: found.addressKey,
      count: String(found.submissions.length),
    });
    res.json(found);
  });
  mountRoute(router, API_ROUTES.createErasure, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { erasure: ['create'] });
    const { email } = API_ROUTES.createErasure.request.body.parse(req.body);
    res.status(201).json(await eraseSubmitter(deps, identity, email));
  });
  mountRoute(router, API_ROUTES.listErasures, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { erasure: ['read'] });
    const { limit } = API_ROUTES.listErasures.request.query.parse(req.query);
    const receipts = await deps.erasures.listReceipts({ orgId: identity.orgId }, limit);
    const data = receipts.map(({ receipt: { submissions: _s, type: _t, ...summary } }): ErasureSummary => summary);
    res.json({ data });
  });
  mountRoute(router, API_ROUTES.getErasure, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { erasure: ['read'] });
    const signed = await deps.erasures.getReceipt({ orgId: identity.orgId }, String(req.params.erasureId));
    if (!signed) throw new AppError('FORMS_ERASURE_NOT_FOUND');
    res.json(signed);
  });
  return router;
}
