import type { IncomingMessage } from 'node:http';
import type { SpamReason } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { webUrl } from '../request-source.ts';
import type { BeforeBodyLayer, LayerFinding, SpamRequest } from './layer.ts';

/** `scheme://host[:port]` of an http(s) URL, lower-cased with the default port dropped; undefined otherwise. */
const originOf = (raw: string): string | undefined => webUrl(raw)?.origin;

/** The form's allowed origins, normalised once per list (the list is replaced, never mutated, on a form change). */
const normalised = new WeakMap<readonly string[], ReadonlySet<string>>();
function allowedSet(list: readonly string[]): ReadonlySet<string> {
  let set = normalised.get(list);
  if (!set) {
    set = new Set(list.map((o) => originOf(o) ?? o.trim().toLowerCase().replace(/\/+$/, '')));
    normalised.set(list, set);
  }
  return set;
}

/**
 * Where the request says it comes from: the `Origin` header, else the `Referer`'s origin. `null` when neither
 * header is there (non-browser clients); `'invalid'` when one is there but is no http(s) URL (`Origin: null` from a
 * sandboxed page or a `file:` page, junk).
 */
export function claimedOrigin(req: IncomingMessage): string | null | 'invalid' {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '') return originOf(origin) ?? 'invalid';
  const referer = req.headers.referer;
  if (typeof referer === 'string' && referer !== '') return originOf(referer) ?? 'invalid';
  return null;
}

const reason = (rule: string, detail: string): SpamReason => ({ layer: 'origin', rule, detail: detail.slice(0, 500) });

/**
 * Allowed origins (before the body is read). Active when the form lists `allowedOrigins` and `origins` is not
 * `off`. A request from an origin not listed (or with an unusable `Origin`/`Referer`) is blocked (403 `BLOCKED`)
 * under `reject`, flagged under `flag`. A request with neither header — a server, a script, a mobile app: browsers
 * always send `Origin` on a cross-origin POST — is flagged (`origin-missing`) in both modes, never blocked: such
 * integrations still get through and land under spam for review. The headers are the client's word: this stops
 * other sites' pages from posting through a visitor's browser, not a script that sets them.
 */
export function createOriginLayer(): Omit<BeforeBodyLayer, 'check'> & { check(input: SpamRequest): LayerFinding } {
  return {
    name: 'origin',
    phase: 'before-body',
    check({ form, settings, req }): LayerFinding {
      const mode = settings.origins;
      if (mode === 'off' || form.settings.allowedOrigins.length === 0) return { verdict: 'pass' };
      const allowed = allowedSet(form.settings.allowedOrigins);
      // A browser sends `Origin` already serialised: a listed one passes without parsing it.
      if (typeof req.headers.origin === 'string' && allowed.has(req.headers.origin)) return { verdict: 'pass' };
      const claimed = claimedOrigin(req);
      if (claimed === null) {
        return { verdict: 'flag', reasons: [reason('origin-missing', 'no Origin or Referer header')] };
      }
      if (claimed !== 'invalid' && allowed.has(claimed)) return { verdict: 'pass' };
      const found = reason(
        'origin-not-allowed',
        claimed === 'invalid' ? 'Origin/Referer is not an http(s) URL' : `${claimed} is not an allowed origin`,
      );
      return mode === 'reject'
        ? { verdict: 'block', reasons: [found], error: new AppError('BLOCKED') }
        : { verdict: 'flag', reasons: [found] };
    },
  };
}
