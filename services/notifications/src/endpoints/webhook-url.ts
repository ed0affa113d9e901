import { MAX_WEBHOOK_URL_LENGTH } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import ipaddr from 'ipaddr.js';

/**
 * Whether `hostname` (as `URL` gives it) names this machine or a private network by itself: `localhost` (and
 * `*.localhost`) or a literal IP that is not public unicast. Names are not resolved here: the connect-time guard
 * (`webhooks/target-guard.ts`) is the real protection; this only refuses the obvious at creation.
 */
export function isLiteralPrivateHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return address.range() !== 'unicast';
}

/**
 * An endpoint URL as it is stored: trimmed, `http:` or `https:`, at most `MAX_WEBHOOK_URL_LENGTH` characters
 * (`NOTIFICATIONS_WEBHOOK_URL_INVALID`); unless private targets are allowed, not `localhost` nor a literal private,
 * loopback or link-local address (`NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN`).
 */
export function checkWebhookUrl(raw: string, options: { allowPrivateTargets: boolean }): string {
  const url = raw.trim();
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (
    !parsed ||
    url.length > MAX_WEBHOOK_URL_LENGTH ||
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    parsed.hostname === ''
  ) {
    throw new AppError('NOTIFICATIONS_WEBHOOK_URL_INVALID', undefined, { field: 'url' });
  }
  if (!options.allowPrivateTargets && isLiteralPrivateHost(parsed.hostname)) {
    throw new AppError('NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN', undefined, { field: 'url' });
  }
  return url;
}

/**
 * A webhook URL as members (who do not manage endpoints) see it: `scheme://host/…` and the last 4 characters of the
 * rest. Slack and Discord incoming-webhook URLs are credentials (whoever has one can post); the host says where
 * deliveries go, the last characters tell endpoints apart. Credentials in the URL (`user:pass@`) never show.
 */
export function redactWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '…';
  }
  const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`.replace(/^\//, '');
  return `${parsed.protocol}//${parsed.host}/${rest.length === 0 ? '' : `…${rest.slice(-4)}`}`;
}
