import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createPrivacyKeys } from '@formgate/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliConfig } from '../src/config.ts';
import { ExitWith, verifyReceiptFile } from '../src/erasures.ts';
import { CliError } from '../src/http.ts';

const run = promisify(execFile);
const keys = createPrivacyKeys('a privacy secret of at least thirty-two characters');
const signed = keys.sign({
  type: 'erasure-receipt/1',
  id: 'er_1',
  orgId: 'org1',
  requestedBy: { id: 'key_1', via: 'api-key' },
  addressKey: keys.addressKey('eve@example.com'),
  erasedAt: '2026-11-02T09:30:00.000Z',
  count: 1,
  forms: ['f1'],
  submissions: [{ id: 'sub_1', formId: 'f1', receivedAt: '2026-11-01T10:00:00.000Z' }],
});
const keyId = signed.signature.keyId;

interface Seen {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: unknown;
}
const seen: Seen[] = [];
let server: Server;
let url: string;
const dir = mkdtempSync(join(tmpdir(), 'formgate-erasures-'));

/** A stand-in for the erasure API: the public keys, and a receipt for any erasure or erasure id. */
function answer(req: IncomingMessage): [number, unknown] {
  const path = new URL(req.url ?? '/', 'http://x.invalid').pathname;
  if (path === '/api/v1/erasures/keys') return [200, { keys: keys.publicKeys() }];
  if (!req.headers['x-api-key']) return [401, { error: { code: 'UNAUTHENTICATED', message: 'Sign in' } }];
  if (req.method === 'POST' && path === '/api/v1/erasures') return [201, signed];
  if (path === '/api/v1/erasures') return [200, { data: [] }];
  if (path === '/api/v1/erasures/er_1') return [200, signed];
  return [404, { error: { code: 'FORMS_ERASURE_NOT_FOUND', message: 'Erasure not found' } }];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const apiKey = req.headers['x-api-key'];
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: typeof apiKey === 'string' ? apiKey : undefined,
        body: raw ? JSON.parse(raw) : undefined,
      });
      const [status, body] = answer(req);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fileOf = (name: string, content: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const config = () => ({ PORT: 3000, FORMGATE_URL: url }) as CliConfig;

describe('formgate erase verify', () => {
  it('says a receipt the instance signed is valid, with the key that signed it', async () => {
    const before = seen.length;
    expect(await verifyReceiptFile(config(), fileOf('valid.json', signed))).toEqual({ valid: true, keyId });
    // The keys are public: no API key is sent.
    expect(seen.slice(before)).toEqual([
      { method: 'GET', url: '/api/v1/erasures/keys', apiKey: undefined, body: undefined },
    ]);
  });

  it('says an altered receipt, or one signed by a key the instance does not list, is invalid (exit 1)', async () => {
    const altered = { ...signed, receipt: { ...signed.receipt, count: 0 } };
    expect(await verifyReceiptFile(config(), fileOf('altered.json', altered))).toEqual(
      new ExitWith(1, { valid: false, keyId }),
    );
    const otherKey = { ...signed, signature: { ...signed.signature, keyId: 'ffffffffffffffff' } };
    expect(await verifyReceiptFile(config(), fileOf('other-key.json', otherKey))).toEqual(
      new ExitWith(1, { valid: false, keyId: 'ffffffffffffffff' }),
    );
    expect(await verifyReceiptFile(config(), fileOf('not-a-receipt.json', { hello: 1 }))).toEqual(
      new ExitWith(1, { valid: false, keyId: null }),
    );
  });

  it('refuses a file it cannot read or that is not JSON', async () => {
    await expect(verifyReceiptFile(config(), join(dir, 'missing.json'))).rejects.toThrow(CliError);
    await expect(verifyReceiptFile(config(), fileOf('text.json', 'not json'))).rejects.toThrow(/is not JSON/);
  });
});

// Each call is a new Node process (tsx): seconds each on a loaded machine.
describe('the erasure commands', { timeout: 60_000 }, () => {
  const cli = (env: Record<string, string>, ...args: string[]) =>
    run('npx', ['tsx', 'packages/cli/src/main.ts', ...args], {
      env: { ...process.env, FORMGATE_URL: url, ...env },
    });

  it('erases with the API key and prints the signed receipt; lists and gets erasures', async () => {
    const before = seen.length;
    const env = { FORMGATE_API_KEY: 'fg_test' };
    expect(JSON.parse((await cli(env, 'erase', 'eve@example.com')).stdout)).toEqual(signed);
    expect(JSON.parse((await cli(env, 'erasures', 'list', '--limit', '5')).stdout)).toEqual({ data: [] });
    expect(JSON.parse((await cli(env, 'erasures', 'get', 'er_1')).stdout)).toEqual(signed);
    expect(seen.slice(before)).toEqual([
      { method: 'POST', url: '/api/v1/erasures', apiKey: 'fg_test', body: { email: 'eve@example.com' } },
      { method: 'GET', url: '/api/v1/erasures?limit=5', apiKey: 'fg_test', body: undefined },
      { method: 'GET', url: '/api/v1/erasures/er_1', apiKey: 'fg_test', body: undefined },
    ]);
  });

  it('exits 1 on an invalid receipt, printing the verdict; 2 without an API key', async () => {
    const altered = fileOf('cli-altered.json', { ...signed, receipt: { ...signed.receipt, forms: [] } });
    const failure = await cli({}, 'erase', 'verify', altered).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(JSON.parse(failure.stdout)).toEqual({ valid: false, keyId });
    expect(JSON.parse((await cli({}, 'erase', 'verify', fileOf('cli-valid.json', signed))).stdout)).toEqual({
      valid: true,
      keyId,
    });
    const keyless = await cli({ FORMGATE_API_KEY: '' }, 'erase', 'eve@example.com').catch((e) => e);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('FORMGATE_API_KEY');
  });
});
