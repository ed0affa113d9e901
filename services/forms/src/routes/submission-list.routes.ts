import type { Form, OrgScope, SubmissionDto } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, type Logger, mountRoute, readPage } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { ExportAudit } from '../export-audit.ts';
import type { FormRepository } from '../store/form-repository.ts';
import type { StoredSubmission, SubmissionRecord } from '../store/records.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';
import { encodeCursor, resolveCursor } from './submission-cursor.ts';
import { sendExport } from './submission-export.ts';
import { filterOf, isFiltered, withoutHeldByDefault } from './submission-filter.ts';

export function toSubmissionDto(r: SubmissionRecord): SubmissionDto {
  return {
    id: r.id,
    formId: r.formId,
    createdAt: r.createdAt,
    fields: r.fields,
    files: r.files.map((f) => ({ ...f, scan: r.fileScans?.[f.blobKey] ?? null })),
    spam: r.spam.isSpam,
    spamReasons: r.spam.reasons,
    held: r.held,
    origin: r.origin ?? null,
    referer: r.referer ?? null,
    contentDropped: r.contentDropped === true,
  };
}

/**
 * `GET /:formId/submissions` (filters `spam`, `held`, `from`, `to`, search `q`, keyset cursor) and
 * `GET /:formId/submissions/export` (the same filters, streamed as CSV, JSON or NDJSON).
 */
export function submissionListRoutes(deps: {
  forms: Pick<FormRepository, 'getForm'>;
  submissions: SubmissionReadModel;
  logger: Logger;
  auditExport: ExportAudit;
}) {
  const { forms, submissions } = deps;
  const router = Router();
  const scopeOf = (req: Request): OrgScope => ({ orgId: identityOf(req).orgId });
  const loadForm = async (req: Request): Promise<Form> => {
    const form = await forms.getForm(scopeOf(req), String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };

  mountRoute(router, API_ROUTES.listSubmissions, async (req, res) => {
    const { limit, cursor, ...query } = API_ROUTES.listSubmissions.request.query.parse(req.query);
    const filter = filterOf(query);
    const scope = scopeOf(req);
    if (!isFiltered(filter)) {
      // The form's list without held submissions: the plain list while it has none (its cheapest read), else the
      // same order filtered; either way a cursor is a position, so paging goes on across the switch. The counts are
      // read beside the form (scoped by organization like it), not after it: one round trip less per page.
      const [form, counts] = await Promise.all([
        loadForm(req),
        submissions.getFormCounts(scope, [String(req.params.formId)]),
      ]);
      const after = cursor ? resolveCursor(cursor) : undefined;
      const held = counts.get(form.id)?.heldCount ?? 0;
      const page = { ...(after ? { after } : {}) };
      const read = (rows: number) =>
        held > 0
          ? submissions.findSubmissions(scope, form.id, { filter: { held: false }, limit: rows, ...page })
          : submissions.listSubmissions(scope, form.id, { limit: rows, ...page });
      res.json(await readPage(limit, read, toSubmissionDto, (s: StoredSubmission) => encodeCursor(s)));
      return;
    }
    const form = await loadForm(req);
    const filtered = withoutHeldByDefault(filter);
    const after = cursor ? resolveCursor(cursor) : undefined;
    const read = (rows: number) =>
      submissions.findSubmissions(scope, form.id, { filter: filtered, limit: rows, ...(after ? { after } : {}) });
    res.json(await readPage(limit, read, toSubmissionDto, (s: StoredSubmission) => encodeCursor(s)));
  });

  mountRoute(router, API_ROUTES.exportSubmissions, async (req, res) => {
    const { format, ...query } = API_ROUTES.exportSubmissions.request.query.parse(req.query);
    const filter = withoutHeldByDefault(filterOf(query));
    const form = await loadForm(req);
    // A no-store form (issue 31) keeps no content past its deliveries: nothing is exported, even in transit.
    if (!form.settings.storeContent) throw new AppError('FORMS_NOTHING_TO_EXPORT');
    await deps.auditExport(identityOf(req), { kind: 'submissions', formId: form.id, format });
    await sendExport(deps, res, form, filter, format);
  });

  return router;
}
