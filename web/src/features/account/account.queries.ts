import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';

export const accountKeys = {
  sessions: ['account', 'sessions'] as const,
  passkeys: ['account', 'passkeys'] as const,
};

/** One of the user's signed-in sessions, as better-auth lists them (`GET /api/auth/list-sessions`). */
export interface SessionRow {
  id: string;
  token: string;
  userAgent?: string | null;
  ipAddress?: string | null;
  createdAt: string | Date;
  /** When the session was last refreshed by use (at most a day old while it is in use). */
  updatedAt?: string | Date;
  expiresAt: string | Date;
}

export const sessionsQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: accountKeys.sessions,
    queryFn: async () => (unwrap(await auth.listSessions()) ?? []) as SessionRow[],
  });

/** One of the user's passkeys, as better-auth lists them (`GET /api/auth/passkey/list-user-passkeys`). */
export interface PasskeyRow {
  id: string;
  name?: string | null;
  createdAt?: string | Date | null;
  /** `multiDevice`: synced by a password manager or a platform account; `singleDevice`: kept by one authenticator. */
  deviceType?: string | null;
  backedUp?: boolean | null;
}

export const passkeysQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: accountKeys.passkeys,
    queryFn: async () => (unwrap(await auth.passkey.listUserPasskeys()) ?? []) as PasskeyRow[],
  });

/** A passkey's name, given when it is added and changed by renaming it (better-auth `passkey/update-passkey`). */
export const PasskeyNameSchema = z.object({ name: z.string().trim().min(1, 'Enter a name').max(100) });
export type PasskeyNameRequest = z.infer<typeof PasskeyNameSchema>;

/** The name a new passkey is offered: where it is being made ("Passkey on Chrome on macOS"). */
export function defaultPasskeyName(userAgent: string | undefined): string {
  const device = describeUserAgent(userAgent);
  return device.startsWith('Unknown') || device.startsWith('A browser') ? 'My passkey' : `Passkey on ${device}`;
}

/** A short, readable name for a user agent ("Firefox on Linux"); the raw string stays available as a title. */
export function describeUserAgent(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrome\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : /curl\//.test(userAgent)
            ? 'curl'
            : 'A browser';
  const os = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  return os ? `${browser} on ${os}` : browser;
}
