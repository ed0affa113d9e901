import { z } from 'zod';
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
import { ApiKeyDtoSchema, CreateApiKeyRequestSchema, CreatedApiKeyDtoSchema } from '../api-keys.ts';
import { SessionDtoSchema, UserLookupDtoSchema } from '../auth.ts';
import { BillingUsageDtoSchema, EmailQuotaDtoSchema } from '../billing.ts';
import type { ErrorCode } from '../errors.ts';
import { AltchaChallengeSchema, IngestAcceptedSchema, TimeStampDtoSchema } from '../ingest.ts';
import {
  DeliveryDtoSchema,
  NotificationEmailDtoSchema,
  ReplayRequestSchema,
  ReplayResultDtoSchema,
} from '../notifications.ts';
import {
  AuditEntryDtoSchema,
  FlagDtoSchema,
  NotificationEmailRequestSchema,
  OrgSettingsDtoSchema,
  OrgSettingsSchema,
} from '../orgs.ts';
import { PlansResponseDtoSchema } from '../plans.ts';
import { SiteConfigSchema } from '../site.ts';
import {
  CreateWebhookRequestSchema,
  UpdateWebhookRequestSchema,
  WebhookEndpointDtoSchema,
  WebhookEndpointWithSecretDtoSchema,
} from '../webhooks.ts';

/** A success answer: a JSON body of `schema`, other media types (`content`), or none (204, 303). */
export interface SuccessSpec {
  status: number;
  description: string;
  schema?: z.ZodType;
  /** Non-JSON bodies: media type → JSON Schema of the body as text or bytes. */
  content?: Record<string, Record<string, unknown>>;
  /** A redirect: `Location` is set. */
  redirect?: boolean;
}

/**
 * What the description says of one operation beyond the route table: the zod schemas the service parses its input
 * with and builds its answers from, and the error codes the operation itself raises (those every route of its kind
 * can answer — authentication, validation, an unavailable service — are added from the route table's rules).
 */
export interface OperationSpec {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  success: SuccessSpec[];
  errors?: ErrorCode[];
}

const json = (status: number, description: string, schema: z.ZodType): SuccessSpec => ({ status, description, schema });
const noContent = (description = 'Done; no body'): SuccessSpec => ({ status: 204, description });
const FORM: ErrorCode[] = ['FORMS_FORM_NOT_FOUND'];
const SUBMISSION: ErrorCode[] = ['FORMS_FORM_NOT_FOUND', 'FORMS_SUBMISSION_NOT_FOUND'];
const WEBHOOK: ErrorCode[] = ['FORMS_FORM_NOT_FOUND', 'NOTIFICATIONS_WEBHOOK_NOT_FOUND'];
const WEBHOOK_URL: ErrorCode[] = ['NOTIFICATIONS_WEBHOOK_URL_INVALID', 'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN'];

/** `GET /api/v1/notification-emails/verify?token=`: the mailed link's token. */
const VerifyQuerySchema = z.object({ token: z.string().optional() });

/**
 * Every operation of the API, keyed `METHOD path` exactly as in the gateway's route table (`gateway/src/routes.ts`):
 * the conformance test proves both list the same operations.
 */
export const API_OPERATIONS: Record<string, OperationSpec> = {
  'GET /api/v1/session': {
    operationId: 'getSession',
    tag: 'Accounts',
    summary: 'The signed-in user, their active organization and roles',
    success: [json(200, 'The session', SessionDtoSchema)],
  },
  'GET /api/v1/users/by-email/:email': {
    operationId: 'lookupUserByEmail',
    tag: 'Accounts',
    summary: 'Whether an account has this email (sign-in page); limited per client IP',
    success: [json(200, 'The lookup', UserLookupDtoSchema)],
    errors: ['INVALID_EMAIL', 'RATE_LIMITED', 'AUTH_UNAVAILABLE'],
  },
  'GET /api/v1/site': {
    operationId: 'getSite',
    tag: 'Site',
    summary: "The instance's public configuration (plans, its own forms)",
    success: [json(200, 'The configuration', SiteConfigSchema)],
  },
  'GET /api/v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    tag: 'Site',
    summary: 'This description (OpenAPI 3.1)',
    success: [
      { status: 200, description: 'The OpenAPI document', content: { 'application/json': { type: 'object' } } },
    ],
  },
  'GET /api/v1/plans': {
    operationId: 'listPlans',
    tag: 'Billing',
    summary: 'The plans in force (pricing page)',
    success: [json(200, 'The plans', PlansResponseDtoSchema)],
  },
  'GET /api/v1/api-keys': {
    operationId: 'listApiKeys',
    tag: 'API keys',
    summary: "The organization's API keys (never the keys themselves)",
    success: [json(200, 'The keys, newest first', listOf(ApiKeyDtoSchema))],
    errors: ['AUTH_UNAVAILABLE'],
  },
  'POST /api/v1/api-keys': {
    operationId: 'createApiKey',
    tag: 'API keys',
    summary: 'Create an API key; the answer is the only time the whole key is shown',
    body: CreateApiKeyRequestSchema,
    success: [json(201, 'The key, with `key`', CreatedApiKeyDtoSchema)],
    errors: ['AUTH_UNAVAILABLE'],
  },
  'DELETE /api/v1/api-keys/:keyId': {
    operationId: 'deleteApiKey',
    tag: 'API keys',
    summary: 'Revoke an API key (within 30 s on other gateways)',
    success: [noContent('Revoked')],
    errors: ['API_KEY_NOT_FOUND', 'AUTH_UNAVAILABLE'],
  },
  'GET /api/v1/forms': {
    operationId: 'listForms',
    tag: 'Forms',
    summary: "The organization's forms with their counters, or the one with `slug`",
    query: FormListQuerySchema,
    success: [json(200, 'The forms', listOf(FormWithCountsDtoSchema))],
  },
  'POST /api/v1/forms': {
    operationId: 'createForm',
    tag: 'Forms',
    summary: 'Create a form',
    body: CreateFormRequestSchema,
    success: [json(201, 'The form', FormWithCountsDtoSchema)],
    errors: ['FORMS_SLUG_TAKEN', 'PLAN_LIMIT_REACHED'],
  },
  'GET /api/v1/forms/:formId': {
    operationId: 'getForm',
    tag: 'Forms',
    summary: 'A form with its counters',
    success: [json(200, 'The form', FormWithCountsDtoSchema)],
    errors: FORM,
  },
  'PATCH /api/v1/forms/:formId': {
    operationId: 'updateForm',
    tag: 'Forms',
    summary: "Change a form's name or settings (absent keys are kept)",
    body: UpdateFormRequestSchema,
    success: [json(200, 'The form as changed', FormDtoSchema)],
    errors: [...FORM, 'FORMS_CONCURRENT_UPDATE'],
  },
  'DELETE /api/v1/forms/:formId': {
    operationId: 'deleteForm',
    tag: 'Forms',
    summary: 'Delete a form and its submissions; its endpoint answers 410 from then on',
    success: [noContent('Deleted')],
    errors: FORM,
  },
  'GET /api/v1/forms/:formId/stats': {
    operationId: 'getFormStats',
    tag: 'Forms',
    summary: "A form's submissions, spam and blocked requests per UTC day",
    query: FormStatsQuerySchema,
    success: [json(200, 'The daily series', FormStatsDtoSchema)],
    errors: FORM,
  },
  'GET /api/v1/forms/:formId/submissions': {
    operationId: 'listSubmissions',
    tag: 'Submissions',
    summary: "A page of a form's submissions, newest first (held ones only with `held=true`)",
    query: PageQuerySchema.extend(SubmissionFilterQuerySchema.shape),
    success: [json(200, 'A page', pageOf(SubmissionDtoSchema))],
    errors: [...FORM, 'INVALID_CURSOR', 'FORMS_INVALID_SEARCH'],
  },
  'GET /api/v1/forms/:formId/submissions/export': {
    operationId: 'exportSubmissions',
    tag: 'Submissions',
    summary: "Download a form's submissions matching the filters (streamed)",
    query: SubmissionExportQuerySchema.extend(SubmissionFilterQuerySchema.shape),
    success: [
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
    errors: [...FORM, 'FORMS_INVALID_SEARCH'],
  },
  'POST /api/v1/forms/:formId/submissions/bulk': {
    operationId: 'bulkChangeSubmissions',
    tag: 'Submissions',
    summary: 'Delete, mark spam or not spam up to 100 submissions',
    body: BulkSubmissionsRequestSchema,
    success: [json(200, 'What was done to each', BulkSubmissionsResultDtoSchema)],
    errors: FORM,
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId': {
    operationId: 'getSubmission',
    tag: 'Submissions',
    summary: 'A submission',
    success: [json(200, 'The submission (its contents are untrusted text)', SubmissionDtoSchema)],
    errors: SUBMISSION,
  },
  'PATCH /api/v1/forms/:formId/submissions/:submissionId': {
    operationId: 'updateSubmission',
    tag: 'Submissions',
    summary: 'Mark a submission spam or not spam',
    body: UpdateSubmissionRequestSchema,
    success: [json(200, 'The submission', SubmissionDtoSchema)],
    errors: SUBMISSION,
  },
  'DELETE /api/v1/forms/:formId/submissions/:submissionId': {
    operationId: 'deleteSubmission',
    tag: 'Submissions',
    summary: 'Delete a submission',
    success: [noContent('Deleted')],
    errors: SUBMISSION,
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId/files/:fileId/link': {
    operationId: 'getFileLink',
    tag: 'Submissions',
    summary: 'A short-lived download link for a file of a submission (`fileId`: its `blobKey`)',
    success: [json(200, 'The link', FileLinkDtoSchema)],
    errors: [...SUBMISSION, 'FORMS_FILE_NOT_FOUND'],
  },
  'GET /api/v1/files/:token': {
    operationId: 'downloadFile',
    tag: 'Submissions',
    summary: 'Download a file by the signed token of its link (always an attachment)',
    success: [
      {
        status: 200,
        description: 'The file, as an attachment, with its stored content type (active types served as text/plain)',
        content: { '*/*': { type: 'string', contentMediaType: 'application/octet-stream' } },
      },
    ],
    errors: ['FORMS_FILE_LINK_INVALID', 'FORMS_FILE_NOT_FOUND'],
  },
  'GET /api/v1/forms/:formId/submissions/:submissionId/deliveries': {
    operationId: 'listDeliveries',
    tag: 'Deliveries',
    summary: "A submission's delivery log (emails, webhooks)",
    success: [json(200, 'The deliveries', listOf(DeliveryDtoSchema))],
    errors: FORM,
  },
  'POST /api/v1/forms/:formId/submissions/:submissionId/deliveries/:deliveryId/resend': {
    operationId: 'resendDelivery',
    tag: 'Deliveries',
    summary: 'Send a delivery again (its first attempt is awaited up to 3 s)',
    body: z.strictObject({}),
    success: [json(202, 'The new delivery', DeliveryDtoSchema)],
    errors: [
      ...FORM,
      'NOTIFICATIONS_DELIVERY_NOT_FOUND',
      'NOTIFICATIONS_SUBMISSION_GONE',
      'NOTIFICATIONS_RECIPIENT_NOT_VERIFIED',
      'NOTIFICATIONS_WEBHOOK_NOT_FOUND',
      'NOTIFICATIONS_WEBHOOK_DISABLED',
    ],
  },
  'POST /api/v1/forms/:formId/deliveries/replay': {
    operationId: 'replayDeliveries',
    tag: 'Deliveries',
    summary: "Re-attempt a form's failed deliveries of a time range (idempotent per delivery)",
    body: ReplayRequestSchema,
    success: [json(202, 'What was replayed', ReplayResultDtoSchema)],
    errors: FORM,
  },
  'GET /api/v1/forms/:formId/webhooks': {
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: "A form's webhook endpoints (URLs redacted for members who cannot manage them)",
    success: [json(200, 'The endpoints', listOf(WebhookEndpointDtoSchema))],
    errors: FORM,
  },
  'POST /api/v1/forms/:formId/webhooks': {
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Add a webhook endpoint; the answer is the only time its secret is shown',
    body: CreateWebhookRequestSchema,
    success: [json(201, 'The endpoint, with `secret`', WebhookEndpointWithSecretDtoSchema)],
    errors: [...FORM, ...WEBHOOK_URL, 'NOTIFICATIONS_WEBHOOK_LIMIT_REACHED'],
  },
  'PATCH /api/v1/forms/:formId/webhooks/:webhookId': {
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Change a webhook endpoint (`enabled: true` re-enables it)',
    body: UpdateWebhookRequestSchema,
    success: [json(200, 'The endpoint', WebhookEndpointDtoSchema)],
    errors: [...WEBHOOK, ...WEBHOOK_URL, 'NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE'],
  },
  'DELETE /api/v1/forms/:formId/webhooks/:webhookId': {
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Remove a webhook endpoint',
    success: [noContent('Removed')],
    errors: WEBHOOK,
  },
  'POST /api/v1/forms/:formId/webhooks/:webhookId/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: 'A new signing secret (the previous one keeps signing for 24 h)',
    success: [json(200, 'The endpoint, with its new `secret`', WebhookEndpointWithSecretDtoSchema)],
    errors: [...WEBHOOK, 'NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE'],
  },
  'GET /api/v1/billing/usage': {
    operationId: 'getBillingUsage',
    tag: 'Billing',
    summary: "The organization's usage this period against its plan",
    success: [json(200, 'The usage', BillingUsageDtoSchema)],
  },
  'GET /api/v1/billing/email-quota': {
    operationId: 'getEmailQuota',
    tag: 'Billing',
    summary: 'Notification emails sent this period',
    success: [json(200, 'The quota', EmailQuotaDtoSchema)],
  },
  'GET /api/v1/orgs/settings': {
    operationId: 'getOrgSettings',
    tag: 'Organization',
    summary: "The organization's settings and spam defaults",
    success: [json(200, 'The settings', OrgSettingsDtoSchema)],
    errors: ['ORG_NOT_FOUND'],
  },
  'PATCH /api/v1/orgs/settings': {
    operationId: 'updateOrgSettings',
    tag: 'Organization',
    summary: "Change the organization's settings (spam defaults merged key by key)",
    body: OrgSettingsSchema.strict(),
    success: [json(200, 'The settings', OrgSettingsDtoSchema)],
    errors: ['ORG_NOT_FOUND', 'ORG_CONCURRENT_UPDATE'],
  },
  'GET /api/v1/orgs/audit-log': {
    operationId: 'listAuditLog',
    tag: 'Organization',
    summary: "A page of the organization's audit log, newest first",
    query: PageQuerySchema,
    success: [json(200, 'A page', pageOf(AuditEntryDtoSchema))],
    errors: ['INVALID_CURSOR'],
  },
  'GET /api/v1/flags/:flag': {
    operationId: 'getFlag',
    tag: 'Organization',
    summary: 'Whether a feature is on for the organization',
    success: [json(200, 'The flag', FlagDtoSchema)],
    errors: ['FLAG_NOT_FOUND'],
  },
  'GET /api/v1/notification-emails/verify': {
    operationId: 'verifyNotificationEmail',
    tag: 'Notification emails',
    summary: "The mailed verification link: redirects to the dashboard's success or invalid page",
    query: VerifyQuerySchema,
    success: [{ status: 303, description: 'To the success page, or to `?verification=invalid`', redirect: true }],
  },
  'GET /api/v1/notification-emails': {
    operationId: 'listNotificationEmails',
    tag: 'Notification emails',
    summary: "The organization's notification addresses",
    success: [json(200, 'The addresses', listOf(NotificationEmailDtoSchema))],
  },
  'POST /api/v1/notification-emails': {
    operationId: 'addNotificationEmail',
    tag: 'Notification emails',
    summary: 'Add an address and mail it a verification link (200: it was already listed; the link is sent again)',
    body: NotificationEmailRequestSchema,
    success: [
      json(201, 'Added', NotificationEmailDtoSchema),
      json(200, 'Already listed, not verified: the link was sent again', NotificationEmailDtoSchema),
    ],
    errors: [
      'NOTIFICATIONS_EMAIL_LIMIT_REACHED',
      'NOTIFICATIONS_EMAIL_ALREADY_VERIFIED',
      'NOTIFICATIONS_VERIFICATION_RECENTLY_SENT',
      'NOTIFICATIONS_MAIL_UNAVAILABLE',
    ],
  },
  'DELETE /api/v1/notification-emails/:emailId': {
    operationId: 'deleteNotificationEmail',
    tag: 'Notification emails',
    summary: 'Remove an address',
    success: [noContent('Removed')],
    errors: ['NOTIFICATIONS_EMAIL_NOT_FOUND'],
  },
};

/** The public endpoint's operations (`docs/ingest.md`): answered by ingest, outside the route table. */
export interface PublicOperationSpec extends OperationSpec {
  method: 'GET' | 'POST';
  path: string;
}

export const INGEST_ERROR_CODES: ErrorCode[] = [
  'FORM_NOT_FOUND',
  'FORM_DELETED',
  'INACTIVE',
  'EMPTY',
  'MALFORMED',
  'INVALID_REFERER',
  'UNSUPPORTED_CONTENT_TYPE',
  'UNSUPPORTED_CONTENT_ENCODING',
  'UNSUPPORTED_CHARSET',
  'TOO_MANY_FIELDS',
  'FIELD_NAME_TOO_LONG',
  'FIELD_VALUE_TOO_LONG',
  'JSON_TOO_DEEP',
  'INVALID_CHARACTER',
  'TOO_MANY_FILES',
  'FILES_TOO_BIG',
  'TOO_MANY_PARTS',
  'PAYLOAD_TOO_LARGE',
  'METHOD_NOT_ALLOWED',
  'BLOCKED',
  'RATE_LIMITED',
  'INVALID_IDEMPOTENCY_KEY',
  'UNAVAILABLE',
];

export const PUBLIC_OPERATIONS: PublicOperationSpec[] = [
  {
    method: 'POST',
    path: '/f/:formKey',
    operationId: 'submitForm',
    tag: 'Public endpoint',
    summary: 'Submit to a form (urlencoded, multipart with files, or JSON)',
    description:
      'JSON answers for `Accept: application/json` or `X-Requested-With`; an HTML form gets `303` redirects (to ' +
      '`_next`, the redirect URL or the thank-you page; errors to `_error?error=CODE`) or a small HTML page. A 2xx ' +
      'or 303 means the submission is durably in the log. CORS is open; cookies are ignored. See docs/ingest.md.',
    success: [
      json(200, 'Accepted (JSON clients)', IngestAcceptedSchema),
      { status: 303, description: 'Accepted, or refused with an `_error` URL (HTML forms)', redirect: true },
    ],
    errors: INGEST_ERROR_CODES,
  },
  {
    method: 'GET',
    path: '/f/:formKey/altcha',
    operationId: 'getAltchaChallenge',
    tag: 'Public endpoint',
    summary: 'An ALTCHA challenge for the form',
    success: [json(200, 'The challenge', AltchaChallengeSchema)],
    errors: ['FORM_NOT_FOUND', 'FORM_DELETED', 'INACTIVE', 'METHOD_NOT_ALLOWED', 'UNAVAILABLE'],
  },
  {
    method: 'GET',
    path: '/f/:formKey/timestamp',
    operationId: 'getTimeTrapStamp',
    tag: 'Public endpoint',
    summary: "A signed render timestamp for the time-trap's field",
    success: [json(200, 'The field and its value', TimeStampDtoSchema)],
    errors: ['FORM_NOT_FOUND', 'FORM_DELETED', 'INACTIVE', 'METHOD_NOT_ALLOWED', 'UNAVAILABLE'],
  },
];
