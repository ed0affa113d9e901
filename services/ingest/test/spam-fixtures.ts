import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import {
  DEFAULT_FORM_SETTINGS,
  DEFAULT_SPAM_SETTINGS,
  type Form,
  type FormSettings,
  type SpamSettings,
  type SubmissionField,
} from '@formgate/contracts';
import type { SpamRequest, SpamSubmission } from '../src/spam/layer.ts';

export const NOW = new Date('2026-11-24T12:00:00.000Z');

export function form(settings: Partial<FormSettings> = {}): Form {
  return {
    id: 'form-1',
    orgId: 'org-1',
    name: 'Contact',
    slug: 'contact',
    key: 'key1',
    settings: { ...DEFAULT_FORM_SETTINGS, ...settings },
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    version: 1,
  };
}

/** A real `IncomingMessage` on an unconnected socket, with these headers. */
export function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return req;
}

export function spamRequest(
  over: { form?: Form; settings?: Partial<SpamSettings>; headers?: Record<string, string>; now?: Date } = {},
): SpamRequest {
  return {
    form: over.form ?? form(),
    settings: { ...DEFAULT_SPAM_SETTINGS, ...over.settings },
    req: request(over.headers),
    clientIp: '203.0.113.7',
    now: over.now ?? NOW,
  };
}

export function spamSubmission(
  over: Parameters<typeof spamRequest>[0] & { fields?: SubmissionField[]; reserved?: Record<string, string> } = {},
): SpamSubmission {
  return {
    ...spamRequest(over),
    fields: over.fields ?? [{ name: 'message', value: 'hello' }],
    captchaTokens: {},
    reserved: over.reserved ?? {},
  };
}

export const SECRET = 's'.repeat(40);
