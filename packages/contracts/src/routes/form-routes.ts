import {
  BulkSubmissionsRequestSchema,
  BulkSubmissionsResultDtoSchema,
  CreateFormRequestSchema,
  FileLinkDtoSchema,
  FormDtoSchema,
  FormListQuerySchema,
  FormStatsDtoSchema,
  FormStatsQuerySchema,
  FormWithCountsDtoSchema,
  listOf,
  PageQuerySchema,
  pageOf,
  SubmissionDtoSchema,
  SubmissionExportQuerySchema,
  SubmissionFilterQuerySchema,
  UpdateFormRequestSchema,
  UpdateSubmissionRequestSchema,
} from '../api.ts';
import type { ErrorCode } from '../errors.ts';
import { defineRoute, json, noContent, orgRoute } from './define-route.ts';

/** What every route under `/api/v1/forms/:formId` can answer about its form. */
export const FORM: ErrorCode[] = ['FORMS_FORM_NOT_FOUND'];
const SUBMISSION: ErrorCode[] = [...FORM, 'FORMS_SUBMISSION_NOT_FOUND'];

/** Forms, their submissions and files: the forms service. */
export const formRoutes = {
  listForms: defineRoute({
    ...orgRoute('GET', '/api/v1/forms', 'forms'),
    tag: 'Forms',
    summary: "The organization's forms with their counters, or the one with `slug`",
    request: { query: FormListQuerySchema },
    responses: [json(200, 'The forms', listOf(FormWithCountsDtoSchema))],
  }),
  createForm: defineRoute({
    ...orgRoute('POST', '/api/v1/forms', 'forms', { form: ['create'] }),
    tag: 'Forms',
    summary: 'Create a form',
    request: { body: CreateFormRequestSchema },
    responses: [json(201, 'The form', FormWithCountsDtoSchema)],
    errors: ['FORMS_SLUG_TAKEN', 'PLAN_LIMIT_REACHED'],
  }),
  getForm: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId', 'forms'),
    tag: 'Forms',
    summary: 'A form with its counters',
    responses: [json(200, 'The form', FormWithCountsDtoSchema)],
    errors: FORM,
  }),
  updateForm: defineRoute({
    ...orgRoute('PATCH', '/api/v1/forms/:formId', 'forms', { form: ['update'] }),
    tag: 'Forms',
    summary: "Change a form's name or settings (absent keys are kept)",
    request: { body: UpdateFormRequestSchema },
    responses: [json(200, 'The form as changed', FormDtoSchema)],
    errors: [...FORM, 'FORMS_CONCURRENT_UPDATE', 'PLAN_LIMIT_REACHED'],
  }),
  deleteForm: defineRoute({
    ...orgRoute('DELETE', '/api/v1/forms/:formId', 'forms', { form: ['delete'] }),
    tag: 'Forms',
    summary: 'Delete a form and its submissions; its endpoint answers 410 from then on',
    responses: [noContent('Deleted')],
    errors: FORM,
  }),
  getFormStats: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/stats', 'forms'),
    tag: 'Forms',
    summary: "A form's submissions, spam and blocked requests per UTC day",
    request: { query: FormStatsQuerySchema },
    responses: [json(200, 'The daily series', FormStatsDtoSchema)],
    errors: FORM,
  }),
  listSubmissions: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/submissions', 'forms'),
    tag: 'Submissions',
    summary: "A page of a form's submissions, newest first (held ones only with `held=true`)",
    request: { query: PageQuerySchema.extend(SubmissionFilterQuerySchema.shape) },
    responses: [json(200, 'A page', pageOf(SubmissionDtoSchema))],
    errors: [...FORM, 'INVALID_CURSOR', 'FORMS_INVALID_SEARCH'],
  }),
  // Before `/submissions/:submissionId`, which would take `export` for an id.
  exportSubmissions: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/submissions/export', 'forms'),
    tag: 'Submissions',
    summary: "Download a form's submissions matching the filters (streamed)",
    request: { query: SubmissionExportQuerySchema.extend(SubmissionFilterQuerySchema.shape) },
    responses: [
      {
        status: 200,
        description: 'An attachment: CSV (UTF-8 with BOM), a JSON array, or NDJSON',
        content: {
          'text/csv': { type: 'string' },
          'application/json': { type: 'array', items: { type: 'object' } },
          'application/x-ndjson': { type: 'string' },
        },
      },
    ],
    errors: [...FORM, 'FORMS_INVALID_SEARCH', 'FORMS_NOTHING_TO_EXPORT'],
  }),
  bulkChangeSubmissions: defineRoute({
    ...orgRoute('POST', '/api/v1/forms/:formId/submissions/bulk', 'forms', { form: ['update'] }),
    tag: 'Submissions',
    summary: 'Delete, mark spam or not spam up to 100 submissions',
    request: { body: BulkSubmissionsRequestSchema },
    responses: [json(200, 'What was done to each', BulkSubmissionsResultDtoSchema)],
    errors: FORM,
  }),
  getSubmission: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/submissions/:submissionId', 'forms'),
    tag: 'Submissions',
    summary: 'A submission',
    responses: [json(200, 'The submission (its contents are untrusted text)', SubmissionDtoSchema)],
    errors: SUBMISSION,
  }),
  updateSubmission: defineRoute({
    ...orgRoute('PATCH', '/api/v1/forms/:formId/submissions/:submissionId', 'forms', { form: ['update'] }),
    tag: 'Submissions',
    summary: 'Mark a submission spam or not spam',
    request: { body: UpdateSubmissionRequestSchema },
    responses: [json(200, 'The submission', SubmissionDtoSchema)],
    errors: SUBMISSION,
  }),
  deleteSubmission: defineRoute({
    ...orgRoute('DELETE', '/api/v1/forms/:formId/submissions/:submissionId', 'forms', { form: ['update'] }),
    tag: 'Submissions',
    summary: 'Delete a submission',
    responses: [noContent('Deleted')],
    errors: SUBMISSION,
  }),
  getFileLink: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/submissions/:submissionId/files/:fileId/link', 'forms'),
    tag: 'Submissions',
    summary: 'A short-lived download link for a file of a submission (`fileId`: its `blobKey`)',
    responses: [json(200, 'The link', FileLinkDtoSchema)],
    errors: [...SUBMISSION, 'FORMS_FILE_NOT_FOUND', 'FORMS_FILE_SCAN_PENDING', 'FORMS_FILE_QUARANTINED'],
  }),
  downloadFile: defineRoute({
    method: 'GET',
    path: '/api/v1/files/:token',
    service: 'forms',
    auth: 'public',
    tag: 'Submissions',
    summary: 'Download a file by the signed token of its link (always an attachment)',
    responses: [
      {
        status: 200,
        description: 'The file, as an attachment, with its stored content type (active types served as text/plain)',
        content: { '*/*': { type: 'string', contentMediaType: 'application/octet-stream' } },
      },
    ],
    errors: ['FORMS_FILE_LINK_INVALID', 'FORMS_FILE_NOT_FOUND', 'FORMS_FILE_SCAN_PENDING', 'FORMS_FILE_QUARANTINED'],
  }),
};
