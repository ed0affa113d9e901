import type { FormSettings } from '@formgate/contracts';

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** Origins a redirect may go to: the configured ones and the origin of the form's own redirect URL. */
function allowedOrigins(settings: FormSettings): Set<string> {
  const origins = new Set<string>();
  for (const o of settings.allowedOrigins) {
    const origin = originOf(o);
    if (origin) origins.add(origin);
  }
  const own = settings.redirectUrl ? originOf(settings.redirectUrl) : null;
  if (own) origins.add(own);
  return origins;
}

/**
 * Resolves a client-supplied redirect (`_next`, `_error`, …) to an absolute http(s) URL on an allowed origin, or
 * `null`. A relative path is resolved against the submitting page's origin when that origin is allowed.
 * `javascript:`, `data:`, protocol-relative and backslash tricks never pass: the result is re-parsed and its
 * origin compared exactly.
 */
export function safeRedirect(candidate: string | undefined, settings: FormSettings, referer?: string): string | null {
  if (!candidate || candidate.length > 2_000) return null;
  const origins = allowedOrigins(settings);
  const value = candidate.trim();
  let resolved: URL;
  try {
    if (/^\/(?![/\\])/.test(value)) {
      const base = referer ? originOf(referer) : null;
      if (!base || !origins.has(base)) return null;
      resolved = new URL(value, base);
    } else {
      resolved = new URL(value);
    }
  } catch {
    return null;
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return null;
  if (resolved.username || resolved.password) return null;
  return origins.has(resolved.origin) ? resolved.href : null;
}

/** Where a successful HTML submission goes when the client named no allowed redirect. */
export function defaultNext(settings: FormSettings, publicBaseUrl: string, referer?: string): string {
  if (settings.redirectUrl) return settings.redirectUrl;
  const back = referer && originOf(referer) ? referer : publicBaseUrl;
  return `${publicBaseUrl}/form/submission-received?referer=${encodeURIComponent(back)}`;
}
