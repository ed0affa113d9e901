import {
  type BulkSubmissionsResultDto,
  type DailyCount,
  type Form,
  type FormCounts,
  type FormDto,
  type FormStatsDto,
  formatSettle,
  type OrgScope,
  SETTLE_HEADER,
} from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, type Logger, mountRoute, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { ExportAudit } from '../export-audit.ts';
import type { BlockedCounts } from '../store/blocked-counts.ts';
import type { BlockedDay, StoredDailyCount } from '../store/records.ts';
import { NO_COUNTS } from '../store/submission-changes.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';
import { changeSubmissions, type SubmissionChangeDeps } from '../use-cases/change-submissions.ts';
import { createForm } from '../use-cases/create-form.ts';
import { deleteForm } from '../use-cases/delete-form.ts';
import type { FormWriteDeps } from '../use-cases/form-write-deps.ts';
import { publicSettings } from '../use-cases/spam-settings.ts';
import { updateForm } from '../use-cases/update-form.ts';
import { submissionListRoutes, toSubmissionDto } from './submission-list.routes.ts';

function scopeOf(req: Request) {
  return { orgId: identityOf(req).orgId };
}

function requireWriter(req: Request, action: 'create' | 'update' | 'delete') {
  requirePermission(identityOf(req), { form: [action] });
}

/** Managing a form's submissions (marks, deletions) is a change of the form: owners and admins. */
function requireSubmissionWriter(req: Request) {
  requirePermission(identityOf(req), { form: ['update'] });
}

/** A form as the API shows it: its captcha secret never leaves the service (`secret: null`, `secretSet`). */
export function toFormDto(form: Form, counts?: FormCounts): FormDto & Partial<FormCounts> {
  const { orgId: _org, version: _v, ...rest } = form;
  return { ...rest, settings: publicSettings(form.settings), endpoint: `/f/${form.key}`, ...(counts ?? {}) };
}

const DAY_MS = 86_400_000;
/** `FormCounts.blockedCount` counts the last this many UTC days, today's included. */
export const BLOCKED_COUNT_DAYS = 30;

/** The forms' counters, with their blocked requests of the last `BLOCKED_COUNT_DAYS` UTC days. */
async function countsOf(
  stores: { submissions: SubmissionReadModel; blocked: BlockedCounts },
  scope: OrgScope,
  formIds: string[],
  now: Date,
) {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(now.getTime() - (BLOCKED_COUNT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const [stored, blocked] = await Promise.all([
    stores.submissions.getFormCounts(scope, formIds),
    stores.blocked.getBlockedTotals(scope, formIds, from, to),
  ]);
  return (formId: string): FormCounts => ({
    ...(stored.get(formId) ?? NO_COUNTS),
    blockedCount: blocked.get(formId) ?? 0,
  });
}

/** The last `days` UTC days up to `now`'s, oldest first, days without submissions nor blocks as zeros. */
function dailySeries(now: Date, days: number, counts: StoredDailyCount[], blocked: BlockedDay[] = []): DailyCount[] {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const blockedOn = new Map(blocked.map((b) => [b.day, b.blocked]));
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    const c = byDay.get(day);
    return { day, total: c?.total ?? 0, spam: c?.spam ?? 0, blocked: blockedOn.get(day) ?? 0 };
  });
}

/** `/api/v1/forms`: forms and their submissions, always scoped to the caller's organization. */
export function formsRoutes(
  deps: FormWriteDeps &
    SubmissionChangeDeps & {
      submissions: SubmissionReadModel;
      blocked: BlockedCounts;
      logger: Logger;
      /** Every export is in the organization's audit log before it is sent. */
      auditExport: ExportAudit;
    },
) {
  const { forms, submissions, blocked } = deps;
  const router = Router();
  // Before `/:formId/submissions/:submissionId`, which would take `export` for an id.
  router.use(submissionListRoutes(deps));
  const loadForm = async (req: Request) => {
    const form = await forms.getForm(scopeOf(req), String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };

  mountRoute(router, API_ROUTES.listForms, async (req, res) => {
    const { slug } = API_ROUTES.listForms.request.query.parse(req.query);
    const list = slug
      ? [await forms.getFormBySlug(scopeOf(req), slug)].filter((f): f is Form => f !== null)
      : await forms.listForms(scopeOf(req));
    const ids = list.map((f) => f.id);
    const counts = await countsOf(deps, scopeOf(req), ids, deps.clock.now());
    res.json({ data: list.map((f) => toFormDto(f, counts(f.id))) });
  });

  mountRoute(router, API_ROUTES.createForm, async (req, res) => {
    requireWriter(req, 'create');
    const { form, inForce } = await createForm(deps, scopeOf(req), API_ROUTES.createForm.request.body.parse(req.body));
    if (inForce) res.setHeader(SETTLE_HEADER, formatSettle({ view: 'form', id: form.id, version: form.version }));
    res.status(201).json(toFormDto(form, NO_COUNTS));
  });

  mountRoute(router, API_ROUTES.getForm, async (req, res) => {
    const form = await loadForm(req);
    const counts = await countsOf(deps, scopeOf(req), [form.id], deps.clock.now());
    res.json(toFormDto(form, counts(form.id)));
  });

  mountRoute(router, API_ROUTES.deleteForm, async (req, res) => {
    requireWriter(req, 'delete');
    const formId = String(req.params.formId);
    const version = await deleteForm(deps, scopeOf(req), formId);
    // Read your own settings: the 204 comes once ingest refuses the form's submissions (410).
    res.setHeader(SETTLE_HEADER, formatSettle({ view: 'form', id: formId, version }));
    res.status(204).end();
  });

  mountRoute(router, API_ROUTES.getFormStats, async (req, res) => {
    const form = await loadForm(req);
    const { days } = API_ROUTES.getFormStats.request.query.parse(req.query);
    const now = deps.clock.now();
    const series = dailySeries(now, days, []);
    const from = series[0]?.day as string;
    const to = series[series.length - 1]?.day as string;
    const [counts, blockedDays] = await Promise.all([
      submissions.getDailyCounts(scopeOf(req), form.id, from, to),
      blocked.getBlockedDays(scopeOf(req), form.id, from, to),
    ]);
    const body: FormStatsDto = { days, from, to, data: dailySeries(now, days, counts, blockedDays) };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.updateForm, async (req, res) => {
    requireWriter(req, 'update');
    const form = await updateForm(
      deps,
      scopeOf(req),
      String(req.params.formId),
      API_ROUTES.updateForm.request.body.parse(req.body ?? {}),
    );
    res.setHeader(SETTLE_HEADER, formatSettle({ view: 'form', id: form.id, version: form.version }));
    res.json(toFormDto(form));
  });

  mountRoute(router, API_ROUTES.bulkChangeSubmissions, async (req, res) => {
    requireSubmissionWriter(req);
    const { action, ids } = API_ROUTES.bulkChangeSubmissions.request.body.parse(req.body);
    const form = await loadForm(req);
    const body: BulkSubmissionsResultDto = {
      action,
      data: await changeSubmissions(deps, scopeOf(req), form.id, action, ids),
    };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.updateSubmission, async (req, res) => {
    requireSubmissionWriter(req);
    const { spam } = API_ROUTES.updateSubmission.request.body.parse(req.body);
    const form = await loadForm(req);
    const id = String(req.params.submissionId);
    const [done] = await changeSubmissions(deps, scopeOf(req), form.id, spam ? 'spam' : 'not-spam', [id]);
    if (done?.result === 'not_found') throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    const record = await submissions.getSubmission(scopeOf(req), form.id, id);
    if (!record) throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    res.json(toSubmissionDto(record));
  });

  mountRoute(router, API_ROUTES.deleteSubmission, async (req, res) => {
    requireSubmissionWriter(req);
    const form = await loadForm(req);
    const [done] = await changeSubmissions(deps, scopeOf(req), form.id, 'delete', [String(req.params.submissionId)]);
    if (done?.result === 'not_found') throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    res.status(204).end();
  });

  mountRoute(router, API_ROUTES.getSubmission, async (req, res) => {
    const form = await loadForm(req);
    const record = await submissions.getSubmission(scopeOf(req), form.id, String(req.params.submissionId));
    if (!record) throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    res.json(toSubmissionDto(record));
  });

  return router;
}
