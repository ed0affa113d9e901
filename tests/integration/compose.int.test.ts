import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadGatewayConfig } from '@formgate/gateway';
import { describe, expect, it } from 'vitest';
import { sourceOfCommand } from '../../infra/docker/entry-points.ts';
import { loadBillingConfig } from '../../services/billing/src/config.ts';
import { loadFormsConfig } from '../../services/forms/src/config.ts';
import { loadIngestConfig } from '../../services/ingest/src/config.ts';
import { loadNotificationsConfig } from '../../services/notifications/src/config.ts';
import { loadOrgsConfig } from '../../services/orgs/src/config.ts';

/**
 * No Docker engine runs on the CI machines, so `docker compose up` cannot run here. What can: docker-compose.yml
 * resolved by compose-go (the library `docker compose` uses: schema, anchors, interpolation), then checked against
 * the code — every entry point has a service, every service's environment passes that process's own config
 * schema, the gateway reaches each service on the port it listens on, and scaling a service cannot clash on ports.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface ComposeService {
  command?: string[];
  environment?: Record<string, string | null>;
  ports?: { target: number; published?: string }[];
  build?: { context: string; dockerfile: string };
  depends_on?: Record<string, { condition: string }>;
  image?: string;
  healthcheck?: { test?: string[]; interval?: string; start_period?: string };
}

async function resolveCompose(env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        ![
          'IDENTITY_SECRET',
          'AUTH_SECRET',
          'FILE_LINK_SECRET',
          'PRIVACY_KEY',
          'NOTIFICATIONS_LINK_SECRET',
          'INGEST_SECRET',
          'PUBLIC_URL',
        ].includes(k),
    ),
  );
  const { stdout } = await run(resolve(ROOT, 'infra/compose-check/run.sh'), ['docker-compose.yml'], {
    cwd: ROOT,
    env: { ...clean, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { services: Record<string, ComposeService> };
}

const SECRETS = {
  IDENTITY_SECRET: 'i'.repeat(40),
  AUTH_SECRET: 'a'.repeat(40),
  FILE_LINK_SECRET: 'f'.repeat(40),
  PRIVACY_KEY: 'p'.repeat(40),
  NOTIFICATIONS_LINK_SECRET: 'n'.repeat(40),
  INGEST_SECRET: 'g'.repeat(40),
};
const LOADERS: Record<string, (env: Record<string, string>) => unknown> = {
  'gateway/src/main.ts': loadGatewayConfig,
  'services/forms/src/main.ts': loadFormsConfig,
  'services/ingest/src/main.ts': loadIngestConfig,
  'services/billing/src/main.ts': loadBillingConfig,
  'services/notifications/src/main.ts': loadNotificationsConfig,
  'services/orgs/src/main.ts': loadOrgsConfig,
};
const entryOf = (s: ComposeService) => sourceOfCommand(s.command);
const envOf = (s: ComposeService) =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v ?? ''])) as Record<string, string>;

describe('docker-compose.yml, resolved by compose-go and checked against the code', () => {
  it('refuses to resolve without the deployment secrets, naming each', async () => {
    const failure = await resolveCompose({}).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(failure).toContain('set IDENTITY_SECRET');
    expect(failure).toContain('set AUTH_SECRET');
    expect(failure).toContain('set FILE_LINK_SECRET');
    expect(failure).toContain('set NOTIFICATIONS_LINK_SECRET');
    expect(failure).toContain('set INGEST_SECRET');
  }, 120_000);

  it('runs every entry point of the codebase, each from the one Dockerfile, with an environment its config accepts', async () => {
    const { services } = await resolveCompose(SECRETS);
    const entries = [
      'gateway/src/main.ts',
      ...readdirSync(resolve(ROOT, 'services'))
        .map((dir) => `services/${dir}/src/main.ts`)
        .filter((file) => existsSync(resolve(ROOT, file))),
    ];
    expect(existsSync(resolve(ROOT, 'infra/docker/Dockerfile'))).toBe(true);
    const formgate = Object.entries(services).filter(([, s]) => entryOf(s));
    expect(formgate.map(([, s]) => entryOf(s)).sort()).toEqual([...entries].sort());
    for (const [name, service] of formgate) {
      expect(service.build?.dockerfile, name).toBe('infra/docker/Dockerfile');
      const loader = LOADERS[entryOf(service) as string];
      expect(loader, `a config loader for ${name}`).toBeTypeOf('function');
      expect(() => loader?.(envOf(service)), name).not.toThrow();
    }
  }, 120_000);

  it('points the gateway at each service on the port that service listens on, after Kafka and Mongo are healthy', async () => {
    const { services } = await resolveCompose(SECRETS);
    const gateway = services.gateway as ComposeService;
    const urls = loadGatewayConfig(envOf(gateway)) as unknown as Record<string, string[]>;
    for (const [variable, name] of [
      ['FORMS_URL', 'forms'],
      ['INGEST_URL', 'ingest'],
      ['BILLING_URL', 'billing'],
      ['ORGS_URL', 'orgs'],
      ['NOTIFICATIONS_URL', 'notifications'],
    ] as const) {
      const port = envOf(services[name] as ComposeService).PORT;
      expect(String(urls[variable]), variable).toBe(`http://${name}:${port}`);
      expect(gateway.depends_on?.[name], `the gateway waits for ${name}`).toEqual(
        expect.objectContaining({ condition: 'service_healthy' }),
      );
      expect(services[name]?.depends_on).toMatchObject({
        kafka: { condition: 'service_healthy' },
        mongo: { condition: 'service_healthy' },
      });
    }
    expect(envOf(gateway).SMTP_URL).toMatch(/^smtp:\/\/mail:\d+$/);
  }, 120_000);

  it('checks every Formgate service’s health on /readyz at the port it listens on', async () => {
    const { services } = await resolveCompose(SECRETS);
    const formgate = Object.entries(services).filter(([, s]) => entryOf(s));
    expect(formgate.length).toBeGreaterThan(5);
    for (const [name, service] of formgate) {
      const test = service.healthcheck?.test ?? [];
      expect(test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
      expect(envOf(service).PORT, name).toMatch(/^\d+$/);
      // The probe itself, run here against a stand-in for the process: 0 on 200, 1 on 503 and when nothing listens.
      expect(test[3], name).toContain("process.env.PORT + '/readyz'");
    }
    const probe = (services.forms?.healthcheck?.test ?? [])[3] as string;
    const { createServer } = await import('node:http');
    let status = 200;
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/readyz' ? status : 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = String((server.address() as { port: number }).port);
    const exitOf = () =>
      run(process.execPath, ['-e', probe], { env: { ...process.env, PORT: port } }).then(
        () => 0,
        (e: { code: number }) => e.code,
      );
    expect(await exitOf()).toBe(0);
    status = 503;
    expect(await exitOf()).toBe(1);
    await new Promise((r) => server.close(r));
    expect(await exitOf()).toBe(1);
  }, 120_000);

  it('can scale any service but the gateway: only the gateway and the mail UI publish host ports', async () => {
    const { services } = await resolveCompose(SECRETS);
    const publishing = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).some((p) => p.published))
      .map(([name]) => name)
      .sort();
    expect(publishing).toEqual(['gateway', 'mail']);
  }, 120_000);

  it('runs Kafka 4.1 without topic auto-creation and MongoDB as a replica set', async () => {
    const { services } = await resolveCompose(SECRETS);
    expect(services.kafka?.image).toMatch(/^apache\/kafka:4\.1\./);
    expect(envOf(services.kafka as ComposeService).KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
    expect(services.mongo?.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(envOf(services.forms as ComposeService).MONGO_URL).toContain('replicaSet=rs0');
  }, 120_000);
});
