import type { IncomingMessage } from 'node:http';
import { MAX_SOURCE_URL_LENGTH } from '@formgate/contracts';

/** Where a submission came from, as the submitting browser said: both optional, both untrusted. */
export interface RequestSource {
  origin?: string;
  referer?: string;
}

/** An absolute `http(s)` URL without credentials, or undefined for anything else (`javascript:`, `null`, junk). */
export function webUrl(raw: string | string[] | undefined): URL | undefined {
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.username = '';
  url.password = '';
  return url;
}

const clip = (s: string) => s.slice(0, MAX_SOURCE_URL_LENGTH);

/**
 * The request's `Origin` (serialised as scheme, host and port) and `Referer` (without its fragment or
 * credentials), kept only when they are `http(s)` URLs and cut to `MAX_SOURCE_URL_LENGTH` characters. Both are
 * headers any client can set: they are recorded for display, never trusted. Serialised URLs are ASCII, so cutting
 * them never splits a character.
 */
export function requestSource(req: IncomingMessage): RequestSource {
  const origin = webUrl(req.headers.origin);
  const referer = webUrl(req.headers.referer);
  if (referer) referer.hash = '';
  return {
    ...(origin ? { origin: clip(origin.origin) } : {}),
    ...(referer ? { referer: clip(referer.href) } : {}),
  };
}
