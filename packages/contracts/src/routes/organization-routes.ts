import { pageOf } from '../api.ts';
import { BillingUsageDtoSchema, EmailQuotaDtoSchema } from '../billing.ts';
import {
  AuditChainPageDtoSchema,
  AuditChainQuerySchema,
  AuditEntryDtoSchema,
  AuditLogQuerySchema,
  FlagDtoSchema,
  OrgSettingsDtoSchema,
  OrgSettingsSchema,
} from '../orgs.ts';
import { defineRoute, json, orgRoute } from './define-route.ts';

/** The organization's usage (billing), settings, audit log and flags (orgs). */
export const organizationRoutes = {
  getBillingUsage: defineRoute({
    ...orgRoute('GET', '/api/v1/billing/usage', 'billing'),
    tag: 'Billing',
    summary: "The organization's usage this period against its plan",
    responses: [json(200, 'The usage', BillingUsageDtoSchema)],
  }),
  getEmailQuota: defineRoute({
    ...orgRoute('GET', '/api/v1/billing/email-quota', 'billing'),
    tag: 'Billing',
    summary: 'Notification emails sent this period',
    responses: [json(200, 'The quota', EmailQuotaDtoSchema)],
  }),
  getOrgSettings: defineRoute({
    ...orgRoute('GET', '/api/v1/orgs/settings', 'orgs'),
    tag: 'Organization',
    summary: "The organization's settings and spam defaults",
    responses: [json(200, 'The settings', OrgSettingsDtoSchema)],
    errors: ['ORG_NOT_FOUND'],
  }),
  updateOrgSettings: defineRoute({
    ...orgRoute('PATCH', '/api/v1/orgs/settings', 'orgs', { organization: ['update'] }),
    tag: 'Organization',
    summary: "Change the organization's settings (spam defaults merged key by key)",
    request: { body: OrgSettingsSchema.strict() },
    responses: [json(200, 'The settings', OrgSettingsDtoSchema)],
    errors: ['ORG_NOT_FOUND', 'ORG_CONCURRENT_UPDATE'],
  }),
  listAuditLog: defineRoute({
    ...orgRoute('GET', '/api/v1/orgs/audit-log', 'orgs', { organization: ['update'] }),
    tag: 'Organization',
    summary: "A page of the organization's audit log, newest first (by type, actor email and time)",
    request: { query: AuditLogQuerySchema },
    responses: [json(200, 'A page', pageOf(AuditEntryDtoSchema))],
    errors: ['INVALID_CURSOR'],
  }),
  readAuditChain: defineRoute({
    ...orgRoute('GET', '/api/v1/orgs/audit-log/chain', 'orgs', { organization: ['update'] }),
    tag: 'Organization',
    summary: "The organization's audit log in order, with its hash chain, to verify (`formgate audit verify`)",
    request: { query: AuditChainQuerySchema },
    responses: [json(200, 'A page of the chain', AuditChainPageDtoSchema)],
  }),
  getFlag: defineRoute({
    ...orgRoute('GET', '/api/v1/flags/:flag', 'orgs'),
    tag: 'Organization',
    summary: 'Whether a feature is on for the organization',
    responses: [json(200, 'The flag', FlagDtoSchema)],
    errors: ['FLAG_NOT_FOUND'],
  }),
};
