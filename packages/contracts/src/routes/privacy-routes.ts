import { listOf } from '../api.ts';
import {
  ErasureKeysDtoSchema,
  ErasureListQuerySchema,
  ErasureRequestSchema,
  ErasureSummarySchema,
  FormRetentionDtoSchema,
  RetentionPolicyDtoSchema,
  RetentionPolicyRequestSchema,
  SignedErasureReceiptSchema,
  SubjectAccessDtoSchema,
  SubjectAccessRequestSchema,
} from '../privacy.ts';
import { defineRoute, json, orgRoute } from './define-route.ts';

/** Erasure by submitter and its receipts (issue 31, `docs/privacy.md`): the forms service. */
export const privacyRoutes = {
  // Before `/api/v1/erasures/:erasureId`, which would take `keys` for an id.
  getErasureKeys: defineRoute({
    method: 'GET',
    path: '/api/v1/erasures/keys',
    service: 'forms',
    auth: 'public',
    tag: 'Privacy',
    summary: 'The public keys erasure receipts are signed with (Ed25519, SPKI PEM), to verify a receipt',
    responses: [json(200, 'The keys, current first', ErasureKeysDtoSchema)],
  }),
  createErasure: defineRoute({
    ...orgRoute('POST', '/api/v1/erasures', 'forms', { erasure: ['create'] }),
    tag: 'Privacy',
    summary:
      'Erase every submission of the organization in which an email address appears, everywhere it is kept; ' +
      'answers the signed receipt',
    description:
      'Any field, any case, and the reply-to and cc addresses the submitter gave (`_replyto`, `_cc`). The receipt ' +
      'names the address only by its keyed hash. Owners and admins, or a `write` API key.',
    request: { body: ErasureRequestSchema },
    responses: [json(201, 'The signed receipt', SignedErasureReceiptSchema)],
  }),
  getSubjectAccess: defineRoute({
    ...orgRoute('POST', '/api/v1/subject-access', 'forms', { erasure: ['read'] }),
    tag: 'Privacy',
    summary: 'Everything the organization holds about an email address, as one JSON document with links to its files',
    description:
      'The same search as an erasure (any field, any case, reply-to and cc), erasing nothing. Owners and admins, or ' +
      'a `write` API key. File links live as long as any file link.',
    request: { body: SubjectAccessRequestSchema },
    responses: [json(200, 'The document', SubjectAccessDtoSchema)],
  }),
  listErasures: defineRoute({
    ...orgRoute('GET', '/api/v1/erasures', 'forms', { erasure: ['read'] }),
    tag: 'Privacy',
    summary: "The organization's erasures, newest first",
    request: { query: ErasureListQuerySchema },
    responses: [json(200, 'The erasures', listOf(ErasureSummarySchema))],
  }),
  getErasure: defineRoute({
    ...orgRoute('GET', '/api/v1/erasures/:erasureId', 'forms', { erasure: ['read'] }),
    tag: 'Privacy',
    summary: "An erasure's signed receipt",
    responses: [json(200, 'The signed receipt', SignedErasureReceiptSchema)],
    errors: ['FORMS_ERASURE_NOT_FOUND'],
  }),
  getRetention: defineRoute({
    ...orgRoute('GET', '/api/v1/retention', 'forms'),
    tag: 'Privacy',
    summary: "The organization's default retention and the plan's maximum",
    responses: [json(200, 'The policy', RetentionPolicyDtoSchema)],
  }),
  updateRetention: defineRoute({
    ...orgRoute('PATCH', '/api/v1/retention', 'forms', { organization: ['update'] }),
    tag: 'Privacy',
    summary: "Set the organization's default retention (forms without their own keep submissions this many days)",
    description:
      'Submissions older than the retention in force are deleted with everything derived from them (files, search ' +
      'terms, notification copies, delivery payloads; the delivery log keeps outcomes). More days than the plan ' +
      'allows: 403 `PLAN_LIMIT_REACHED` with `details: {limit: "retentionDays", max}`.',
    request: { body: RetentionPolicyRequestSchema },
    responses: [json(200, 'The policy', RetentionPolicyDtoSchema)],
    errors: ['PLAN_LIMIT_REACHED'],
  }),
  getFormRetention: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/retention', 'forms'),
    tag: 'Privacy',
    summary: "The retention in force for a form, where it comes from, and when the form's oldest submission goes",
    responses: [json(200, 'The retention', FormRetentionDtoSchema)],
    errors: ['FORMS_FORM_NOT_FOUND'],
  }),
};
