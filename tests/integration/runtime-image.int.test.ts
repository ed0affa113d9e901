import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRuntime, EXTERNAL, RUNTIME_BUDGET_BYTES, treeBytes, VENDORED } from '../../infra/docker/build-runtime.ts';
import { ENTRY_POINTS } from '../../infra/docker/entry-points.ts';
import { createAccounts, createOrgKeys } from '../harness/accounts.ts';
import { waitForMailLink } from '../harness/browser-session.ts';
import { startOtlpReceiver } from '../harness/otlp-receiver.ts';
import { freePort, ROOMY_PLANS_FILE } from '../harness/processes.ts';

/**
 * No Docker engine runs here, so the image is checked the other way round: the runtime tree its final stage copies
 * (infra/docker/build-runtime.ts) is built into a temporary directory and Formgate runs from it with plain `node`,
 * nothing of the workspace reachable (no tsx, no dev dependencies, no NODE_PATH, the tree outside the checkout).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

let tree: string;
let dataDir: string;
let embedded: ChildProcess | undefined;

/** The environment of a process of the image: PATH and the given variables only. */
const imageEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...env });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => f.replaceAll('\\', '/'));
}

function workspaceDependencies(field: 'dependencies' | 'devDependencies'): string[] {
  const manifests = ['package.json', 'tests/package.json', 'web/package.json'];
  for (const group of ['packages', 'services', 'hosts']) {
    for (const dir of readdirSync(join(ROOT, group))) manifests.push(`${group}/${dir}/package.json`);
  }
  manifests.push('gateway/package.json');
  const names = new Set<string>();
  for (const file of manifests) {
    const pkg = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<typeof field, Record<string, string>>;
    for (const name of Object.keys(pkg[field] ?? {})) names.add(name);
  }
  return [...names];
}

beforeAll(async () => {
  tree = mkdtempSync(join(tmpdir(), 'fg-runtime-'));
  dataDir = mkdtempSync(join(tmpdir(), 'fg-runtime-data-'));
  await buildRuntime(tree);
}, 120_000);

afterAll(async () => {
  if (embedded && embedded.exitCode === null) {
    const exited = new Promise((r) => embedded?.once('exit', r));
    embedded.kill('SIGTERM');
    await exited;
  }
  rmSync(tree, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the production image: its Dockerfile and the runtime tree it copies', () => {
  it('runs the final stage on Node 24+ as a non-root user, copying only the runtime tree', () => {
    const dockerfile = readFileSync(join(ROOT, 'infra/docker/Dockerfile'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const finalFrom = dockerfile.findLastIndex((l) => l.startsWith('FROM '));
    const final = dockerfile.slice(finalFrom);
    expect(final[0]).toMatch(/^FROM node:(2[4-9]|[3-9]\d)[.-]/);
    const users = final.filter((l) => l.startsWith('USER '));
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER (root|0)(:|$)/);
    // Only the build stage's runtime tree reaches the image: no `COPY . .`, no package manager install.
    expect(final.filter((l) => l.startsWith('COPY ') || l.startsWith('ADD '))).toEqual([
      'COPY --from=build /runtime /app',
    ]);
    expect(final.join('\n')).not.toMatch(/pnpm|npm install|tsx/);
    expect(final.at(-1)).toBe('CMD ["node", "dist/embedded.mjs"]');
    expect(final.join('\n')).toContain('WEB_DIR=/app/web/dist');
    for (const { env, to } of VENDORED) expect(final.join('\n')).toContain(`${env}=/app/${to}`);
    // The SQLite addon is built against the same Node headers as the Node 24 test tier's (ADR 47).
    const tier = readFileSync(join(ROOT, 'infra/local/node24.sh'), 'utf8').match(/NODE24_ADDON_HEADERS:-([\d.]+)/)?.[1];
    expect(tier).toBeDefined();
    expect(dockerfile.slice(0, finalFrom).join('\n')).toContain(`npm_config_target=${tier}`);
  });

  it('holds bundles for every entry point, the built dashboard, and only the externals in node_modules', () => {
    const files = filesUnder(tree);
    for (const name of Object.keys(ENTRY_POINTS)) expect(files).toContain(`dist/${name}.mjs`);
    expect(files).toContain('web/dist/index.html');
    // No TypeScript is needed at run time (type declarations shipped inside a package are inert), no test files.
    expect(files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !/\.d\.[mc]?ts$/.test(f))).toEqual([]);
    expect(files.filter((f) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(f) || /(^|\/)__tests__\//.test(f))).toEqual([]);
    const installed = readdirSync(join(tree, 'node_modules')).sort();
    expect(installed).toEqual(expect.arrayContaining(Object.keys(EXTERNAL)));
    const dev = workspaceDependencies('devDependencies');
    expect(dev).toEqual(expect.arrayContaining(['vitest', 'typescript', 'tsx', '@biomejs/biome']));
    expect(installed.filter((name) => dev.includes(name) || name.startsWith('@'))).toEqual([]);
    // Nor at any depth: the test and build tools, whichever workspace package lists them and however they'd come in.
    const packages = new Set(
      files.flatMap((f) => [...f.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)(?=\/)/g)].map((m) => m[1])),
    );
    expect([...packages]).toEqual(expect.arrayContaining(Object.keys(EXTERNAL)));
    const devOnly =
      /^(vitest|@vitest\/.*|typescript|tsx|esbuild|@esbuild\/.*|vite|@biomejs\/.*|playwright-core|testcontainers|@testcontainers\/.*)$/;
    expect([...packages].filter((name) => devOnly.test(name as string))).toEqual([]);
    // Besides node_modules, only the vendored browser files of production dependencies (no source maps).
    const prod = workspaceDependencies('dependencies');
    expect(files.filter((f) => f.startsWith('vendor/'))).toEqual(VENDORED.map((v) => v.to));
    for (const { name } of VENDORED) expect(prod).toContain(name);
    // The native addon is there, built; its sources and the objects of its build are not.
    expect(files).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(files.filter((f) => f.startsWith('node_modules/better-sqlite3/deps/'))).toEqual([]);
    // Nothing in the bundles points back into the workspace.
    for (const file of files.filter((f) => f.endsWith('.mjs'))) {
      expect(readFileSync(join(tree, file), 'utf8'), file).not.toMatch(/from\s*["'](@formgate\/|\.\.?\/.*\.tsx?["'])/);
    }
  });

  it('fits the size budget (RUNTIME_BUDGET_BYTES, in bytes of its files)', () => {
    const sizes = new Map<string, number>();
    for (const file of filesUnder(tree)) {
      const part = file
        .split('/')
        .slice(0, file.startsWith('node_modules/') ? 2 : 1)
        .join('/');
      sizes.set(part, (sizes.get(part) ?? 0) + statSync(join(tree, file)).size);
    }
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    // What `pnpm build:runtime` prints is this number.
    expect(treeBytes(tree)).toBe(total);
    const parts = [...sizes].sort((a, b) => b[1] - a[1]).map(([part, bytes]) => `${part} ${bytes}`);
    expect(total, `the tree's ${total} bytes, largest parts first:\n${parts.join('\n')}`).toBeLessThan(
      RUNTIME_BUDGET_BYTES,
    );
  });

  it('starts every distributed entry point from the tree: each loads and stops at its configuration', async () => {
    for (const name of ['gateway', 'forms', 'ingest', 'billing', 'notifications', 'orgs']) {
      const failure = await run(process.execPath, [`dist/${name}.mjs`], { cwd: tree, env: imageEnv({}) }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code, name).toBe(1);
      expect(failure?.stderr, name).toMatch(/Invalid configuration:[\s\S]*KAFKA_BROKERS/);
      expect(failure?.stderr, name).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
    }
    const cli = await run(process.execPath, ['dist/formgate.mjs'], { cwd: tree, env: imageEnv({}) }).catch(
      (err: { stdout: string; stderr: string }) => err,
    );
    expect(`${cli.stdout}${cli.stderr}`).toContain('formgate account signup');
  });

  it('serves Formgate embedded from the tree: health, the dashboard, the API reference, a submission taken and listed', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    let output = '';
    // Traces on (ADR 51): the lazily imported SDK chunk must load and export from the bundle too.
    const otlp = await startOtlpReceiver();
    embedded = spawn(process.execPath, ['dist/embedded.mjs'], {
      cwd: tree,
      env: imageEnv({
        NODE_ENV: 'production',
        WEB_DIR: `${tree}/web/dist`,
        // What the Dockerfile's ENV sets (checked above), with the tree's path for /app.
        ...Object.fromEntries(VENDORED.map(({ env, to }) => [env, join(tree, to)])),
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        PLANS_FILE: ROOMY_PLANS_FILE,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    embedded.stdout?.on('data', (d) => {
      output += d;
    });
    embedded.stderr?.on('data', (d) => {
      output += d;
    });
    let health = 0;
    for (let i = 0; i < 300 && health !== 200 && embedded.exitCode === null; i++) {
      health = await fetch(`${baseUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (health !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health, output).toBe(200);

    const page = await fetch(`${baseUrl}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Formgate</title>');
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${baseUrl}${script}`)).status).toBe(200);

    // /docs/api and every script it loads: Scalar's bundle is the vendored file, byte for byte.
    const reference = await fetch(`${baseUrl}/docs/api`);
    expect(reference.status).toBe(200);
    const scripts = [...(await reference.text()).matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/api/scalar.js', '/docs/api/init.js']);
    for (const src of scripts) expect((await fetch(`${baseUrl}${src}`)).status, src).toBe(200);
    const scalar = await fetch(`${baseUrl}/docs/api/scalar.js`);
    expect(scalar.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await scalar.text()).toBe(readFileSync(join(tree, 'vendor/scalar/standalone.js'), 'utf8'));

    const accounts = createAccounts(baseUrl, async (email, subject) =>
      (await waitForMailLink(dataDir, email, subject)).replace('//localhost:', '//127.0.0.1:'),
    );
    const apiKey = await createOrgKeys(accounts)('Image check');
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${baseUrl}/api/v1/forms`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Contact' }),
    });
    expect(created.status).toBe(201);
    const form = (await created.json()) as { id: string; key: string };

    let accepted = 0;
    for (let i = 0; i < 200 && accepted !== 200; i++) {
      const res = await fetch(`${baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.com', message: 'from the runtime tree' }),
      });
      accepted = res.status;
      if (accepted === 404) await new Promise((r) => setTimeout(r, 25));
      else expect(accepted, await res.text()).toBe(200);
    }
    expect(accepted).toBe(200);

    let listed: { fields: { name: string; value: string }[] }[] = [];
    for (let i = 0; i < 200 && listed.length === 0; i++) {
      const res = await fetch(`${baseUrl}/api/v1/forms/${form.id}/submissions`, { headers });
      listed = ((await res.json()) as { data: typeof listed }).data;
      if (listed.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(listed).toHaveLength(1);
    expect(listed[0]?.fields).toContainEqual({ name: 'message', value: 'from the runtime tree' });
    for (let i = 0; i < 100 && !otlp.spans().some((s) => s.name === 'send ingest.submission'); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(otlp.spans().find((s) => s.name === 'send ingest.submission')?.resource['service.name']).toBe('formgate');
    await otlp.stop();
    expect(relative(tree, dataDir).startsWith('..')).toBe(true);

    // README's operator CLI in a gateway pod: its `sh -c` command, with the pod's PORT and OPERATOR_TOKEN.
    const podCommand = readFileSync(join(ROOT, 'README.md'), 'utf8').match(
      /kubectl exec deploy\/gateway -- sh -c '([^']+)'/,
    )?.[1];
    expect(podCommand).toContain('node dist/formgate.mjs lag');
    const token = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
    const lag = await run('sh', ['-c', podCommand as string], {
      cwd: tree,
      env: imageEnv({ PORT: String(port), OPERATOR_TOKEN: token }),
    });
    expect(lag.stdout).toMatch(/^GROUP\s+TOPIC\s+PARTITION/);
    expect(lag.stdout).toMatch(/^forms\.submission-received\s+ingest\.submission\s+\d/m);
    expect(lag.stdout).toMatch(/^total lag: \d+$/m);
  }, 60_000);
});
