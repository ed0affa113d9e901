import { CreateFormRequestSchema, type Form, UpdateFormRequestSchema } from '@formgate/contracts';
import { AppError, identityOf, type Logger, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import { z } from 'zod';
import type { FormsStore } from '../store/forms-store.ts';
import { createForm, type FormWriteDeps } from '../use-cases/create-form.ts';
import { updateForm } from '../use-cases/update-form.ts';
import { submissionListRoutes, toSubmissionDto } from './submission-list.routes.ts';

function scopeOf(req: Request) {
  return { orgId: identityOf(req).orgId };
}

function requireWriter(req: Request, action: 'create' | 'update' | 'delete') {
  requirePermission(identityOf(req), { form: [action] });
}

export function toFormDto(form: Form, submissionCount?: number) {
  const { orgId: _org, version: _v, ...rest } = form;
  return { ...rest, endpoint: `/f/${form.key}`, ...(submissionCount === undefined ? {} : { submissionCount }) };
}

/** `/api/v1/forms`: forms and their submissions, always scoped to the caller's organization. */
export function formsRoutes(deps: FormWriteDeps & { store: FormsStore; logger: Logger }) {
  const { store } = deps;
  const router = Router();
  // Before `/:formId/submissions/:submissionId`, which would take `export` for an id.
  router.use(submissionListRoutes(deps));
  const loadForm = async (req: Request) => {
    const form = await store.getForm(scopeOf(req), String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };

  router.get('/', async (req, res) => {
    const { slug } = z.object({ slug: z.string().max(100).optional() }).parse(req.query);
    const forms = slug
      ? [await store.getFormBySlug(scopeOf(req), slug)].filter((f): f is Form => f !== null)
      : await store.listForms(scopeOf(req));
    res.json({ data: forms.map((f) => toFormDto(f)) });
  });

  router.post('/', async (req, res) => {
    requireWriter(req, 'create');
    const form = await createForm(deps, scopeOf(req), CreateFormRequestSchema.parse(req.body));
    res.status(201).json(toFormDto(form));
  });

  router.get('/:formId', async (req, res) => {
    const form = await loadForm(req);
    res.json(toFormDto(form, await store.countSubmissions(scopeOf(req), form.id)));
  });

  router.patch('/:formId', async (req, res) => {
    requireWriter(req, 'update');
    const form = await updateForm(
      deps,
      scopeOf(req),
      String(req.params.formId),
      UpdateFormRequestSchema.parse(req.body),
    );
    res.json(toFormDto(form));
  });

  router.get('/:formId/submissions/:submissionId', async (req, res) => {
    const form = await loadForm(req);
    const record = await store.getSubmission(scopeOf(req), form.id, String(req.params.submissionId));
    if (!record) throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    res.json(toSubmissionDto(record));
  });

  return router;
}
