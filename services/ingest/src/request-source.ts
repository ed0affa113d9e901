import type { IncomingMessage } from 'node:http';
import { MAX_SOURCE_URL_LENGTH } from '@formgate/contracts';
import { boundedMemo } from '@formgate/kit';

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
  const origin = serialisedOrigin(req.headers.origin);
  const referer = webUrl(req.headers.referer);
  if (referer) referer.hash = '';
  return {
    ...(origin ? { origin } : {}),
    ...(referer ? { referer: clip(referer.href) } : {}),
  };
}

/**
 * A form's submissions come from a handful of origins: each `Origin` header's serialisation is kept (bounded, emptied
 * when full) instead of parsing the same URL for every request. `null`: not an http(s) URL.
 */
const MAX_CACHED_ORIGINS = 1_000;
const MAX_CACHED_ORIGIN_LENGTH = 300;
const originOf = (raw: string): string | null => {
  const url = webUrl(raw);
  return url ? clip(url.origin) : null;
};
const cachedOrigin = boundedMemo(MAX_CACHED_ORIGINS, originOf);
function serialisedOrigin(raw: string | undefined): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  return (raw.length <= MAX_CACHED_ORIGIN_LENGTH ? cachedOrigin(raw) : originOf(raw)) ?? undefined;
}
