import type {
  ErasureRequest,
  ErasureSummary,
  RetentionPolicyDto,
  RetentionPolicyRequest,
  SignedErasureReceipt,
  SubjectAccessDto,
  SubjectAccessRequestSchema,
} from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiFetch } from '../../lib/api.ts';

/* Erasure by submitter (issue 31): the active organization's erasures and their signed receipts. */

export type { ErasureSummary, RetentionPolicyDto, RetentionPolicyRequest, SignedErasureReceipt, SubjectAccessDto };
export type SubjectAccessRequest = z.infer<typeof SubjectAccessRequestSchema>;

export const privacyKeys = {
  all: ['privacy'] as const,
  erasures: () => [...privacyKeys.all, 'erasures'] as const,
  erasure: (erasureId: string) => [...privacyKeys.all, 'erasure', erasureId] as const,
  retention: () => [...privacyKeys.all, 'retention'] as const,
};

const erasurePath = (erasureId: string) => `/api/v1/erasures/${encodeURIComponent(erasureId)}`;

/** The organization's erasures, newest first (without their submission lists). */
export const erasuresQuery = () =>
  queryOptions({
    queryKey: privacyKeys.erasures(),
    queryFn: async () => (await apiFetch<{ data: ErasureSummary[] }>('/api/v1/erasures?limit=100')).data,
  });

/** One erasure's signed receipt, as the server answered it (a receipt never changes). */
export const erasureQuery = (erasureId: string) =>
  queryOptions({
    queryKey: privacyKeys.erasure(erasureId),
    queryFn: () => apiFetch<SignedErasureReceipt>(erasurePath(erasureId)),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** → the signed receipt of what was erased. */
export const createErasure = (body: ErasureRequest) =>
  apiFetch<SignedErasureReceipt>('/api/v1/erasures', { method: 'POST', json: body });

/** The file a receipt is downloaded as: the whole signed receipt, serialized as the server sent it. */
export function receiptFile(signed: SignedErasureReceipt): { name: string; blob: Blob } {
  const safeId = signed.receipt.id.replace(/[^A-Za-z0-9_-]/g, '_');
  return {
    name: `erasure-receipt-${safeId}.json`,
    blob: new Blob([JSON.stringify(signed)], { type: 'application/json' }),
  };
}

/** → everything the organization holds about the address (nothing is erased). */
export const getSubjectAccess = (body: SubjectAccessRequest) =>
  apiFetch<SubjectAccessDto>('/api/v1/subject-access', { method: 'POST', json: body });

/** The file an export is saved as: the whole answer as the server sent it, named by the day it was generated. */
export function subjectAccessFile(dto: SubjectAccessDto, now = new Date()): { name: string; blob: Blob } {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(dto.generatedAt)?.[0] ?? now.toISOString().slice(0, 10);
  return {
    name: `subject-access-${day}.json`,
    blob: new Blob([JSON.stringify(dto)], { type: 'application/json' }),
  };
}

/* Retention (issue 31): how long the organization keeps submissions by default, and its plan's maximum. */

/** The organization's default retention (`days` null: until deleted by hand) and the plan's maximum (null: none). */
export const retentionQuery = () =>
  queryOptions({
    queryKey: privacyKeys.retention(),
    queryFn: () => apiFetch<RetentionPolicyDto>('/api/v1/retention'),
  });

/** → the policy as saved. More days than the plan allows: 403 `PLAN_LIMIT_REACHED`, worded by the server. */
export const updateRetention = (body: RetentionPolicyRequest) =>
  apiFetch<RetentionPolicyDto>('/api/v1/retention', { method: 'PATCH', json: body });
