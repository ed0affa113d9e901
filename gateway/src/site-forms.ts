import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SiteOrganization } from '@formgate/accounts';
import { IDENTITY_HEADER, type IdentitySigner, type Logger } from '@formgate/kit';
import type { Target } from './target.ts';

/** The site's three forms, each its own form of the site organization (the example never fills the waitlist). */
export const SITE_FORMS = [
  { role: 'example', name: 'Example', slug: 'example' },
  { role: 'waitlist', name: 'Waitlist', slug: 'waitlist' },
  { role: 'feedback', name: 'Feedback', slug: 'feedback' },
] as const;
export type SiteFormRole = (typeof SITE_FORMS)[number]['role'];
/** The provisioned forms' keys, by role. */
export type SiteFormKeys = Record<SiteFormRole, string>;

/** One JSON call to the forms service; rejects when it cannot be reached. */
export type FormsCall = (
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

async function fetchJson(base: string, ...[method, path, headers, body]: Parameters<FormsCall>) {
  const res = await fetch(new URL(path, base), {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
}

/**
 * Calls the forms service the way the gateway forwards to it: over HTTP to each of its URLs in turn, or, in
 * process, through a loopback listener that lives for the one call.
 */
export function formsCaller(target: Target): FormsCall {
  if (target.kind === 'http')
    return async (...args) => {
      let last: unknown;
      for (const url of target.urls) {
        try {
          return await fetchJson(url, ...args);
        } catch (err) {
          last = err;
        }
      }
      throw last;
    };
  return async (...args) => {
    const server = createServer(target.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await fetchJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, ...args);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };
}

/**
 * Finds or creates the site organization and its three forms; idempotent. A form is looked up by its slug first;
 * of several gateways creating it at once, the forms store's unique slug lets one win (409 for the others, which
 * then read the winner's).
 */
export async function provisionSiteForms(deps: {
  site: Pick<SiteOrganization, 'ensure'>;
  signer: IdentitySigner;
  call: FormsCall;
}): Promise<SiteFormKeys> {
  const orgId = await deps.site.ensure();
  const token = await deps.signer.sign({
    userId: 'system:site',
    email: null,
    orgId,
    roles: ['owner'],
    via: 'session',
  });
  const headers = { [IDENTITY_HEADER]: token, accept: 'application/json' };
  const find = async (slug: string) => {
    const res = await deps.call('GET', `/api/v1/forms?slug=${slug}`, headers);
    if (res.status !== 200) throw new Error(`forms service answered ${res.status} listing the site forms`);
    return (res.body as { data: { key: string }[] }).data[0]?.key;
  };
  const keys: Partial<SiteFormKeys> = {};
  for (const form of SITE_FORMS) {
    let key = await find(form.slug);
    if (!key) {
      const res = await deps.call('POST', '/api/v1/forms', headers, { name: form.name, slug: form.slug });
      if (res.status === 201) key = (res.body as { key: string }).key;
      else if (res.status === 409) key = await find(form.slug);
      else throw new Error(`forms service answered ${res.status} creating the site form ${form.slug}`);
    }
    if (!key) throw new Error(`site form ${form.slug} not found after creating it`);
    keys[form.role] = key;
  }
  return keys as SiteFormKeys;
}

/**
 * Provisions the site forms in the background, retrying until the accounts database and the forms service answer
 * (a distributed gateway may start before them). `keys()` is null until then; `ready` resolves once done.
 */
export function startSiteProvisioning(deps: Parameters<typeof provisionSiteForms>[0] & { logger: Logger }) {
  let keys: SiteFormKeys | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const ready = (async () => {
    for (let delay = 250; !stopped; delay = Math.min(delay * 2, 10_000)) {
      try {
        keys = await provisionSiteForms(deps);
        deps.logger.info('site forms provisioned');
        return;
      } catch (err) {
        deps.logger.warn({ err }, `site forms not provisioned yet; retrying in ${delay} ms`);
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
    }
  })();
  return {
    keys: () => keys,
    ready,
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
