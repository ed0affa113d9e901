import { queryOptions } from '@tanstack/react-query';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';

export const accountKeys = {
  sessions: ['account', 'sessions'] as const,
};

/** One of the user's signed-in sessions, as better-auth lists them (`GET /api/auth/list-sessions`). */
export interface SessionRow {
  id: string;
  token: string;
  userAgent?: string | null;
  ipAddress?: string | null;
  createdAt: string | Date;
  expiresAt: string | Date;
}

export const sessionsQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: accountKeys.sessions,
    queryFn: async () => (unwrap(await auth.listSessions()) ?? []) as SessionRow[],
  });

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
