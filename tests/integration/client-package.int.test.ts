import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/**
 * `@formgate/client` as an integrator gets it: packed with `pnpm pack` (which builds it and applies
 * `publishConfig`), installed with npm into a project outside the workspace (nothing of the monorepo resolvable),
 * then used from plain Node against a running Formgate and type-checked by that project's TypeScript.
 */
describe('@formgate/client, packed and installed outside the workspace', () => {
  let app: TestApp;
  let outside: string;
  let manifest: Record<string, unknown>;
  let files: string[];

  beforeAll(async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'formgate-client-pack-'));
    const packs = join(scratch, 'packs');
    await mkdir(packs);
    await run('pnpm', ['pack', '--pack-destination', packs], { cwd: join(ROOT, 'packages/client') });
    const [tarball] = await readdir(packs);
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    const listing = await run('tar', ['tzf', join(packs, tarball)]);
    files = listing.stdout.trim().split('\n').sort();
    manifest = JSON.parse((await run('tar', ['xzf', join(packs, tarball), '-O', 'package/package.json'])).stdout);

    outside = join(scratch, 'site');
    await mkdir(outside);
    await writeFile(join(outside, 'package.json'), JSON.stringify({ name: 'site', private: true, type: 'module' }));
    // No registry is needed: the package has no dependencies, and React is an optional peer.
    await run('npm', ['install', join(packs, tarball), '--offline', '--no-audit', '--no-fund'], { cwd: outside });
    app = await startTestApp();
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    if (outside) await rm(resolve(outside, '..'), { recursive: true, force: true });
  });

  it('holds the build, its declarations and the README only, and depends on nothing', () => {
    expect(
      files.every((f) => f === 'package/package.json' || f === 'package/README.md' || f.startsWith('package/dist/')),
    ).toBe(true);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/react.js', 'package/dist/types/index.d.ts']),
    );
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
    // Every path the manifest exports is in the tarball.
    const exported = JSON.stringify(manifest.exports).match(/\.\/dist\/[^"]+/g) ?? [];
    expect(exported.length).toBeGreaterThanOrEqual(4);
    for (const path of exported) expect(files).toContain(`package/${path.slice(2)}`);
  });

  it('posts, lists and exports from plain Node against a running instance', async () => {
    const script = `
      import { createFormgateClient, FormgateError } from '@formgate/client';
      const fg = createFormgateClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
      const form = await fg.forms.create({ name: 'From outside' });
      const a = await fg.submit(form.key, { email: 'a@example.com', message: 'first' }, { idempotencyKey: 'k-1' });
      const again = await fg.submit(form.key, { email: 'a@example.com', message: 'first' }, { idempotencyKey: 'k-1' });
      const b = await fg.submit(form.key, { email: 'b@example.com', message: 'second' });
      let listed = [];
      for (let i = 0; i < 100 && listed.length < 2; i++) {
        listed = [];
        for await (const s of fg.submissions.list(form.id, { limit: 1 })) listed.push(s.id);
        if (listed.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      const csv = await fg.submissions.exportText(form.id, { format: 'csv' });
      let missing;
      try { await fg.forms.get('no-such-form'); } catch (err) { missing = err instanceof FormgateError && [err.status, err.code]; }
      console.log(JSON.stringify({ ids: [a.id, again.id, b.id], listed, csv, missing }));
    `;
    await writeFile(join(outside, 'use.mjs'), script);
    const { stdout } = await run(process.execPath, ['use.mjs'], {
      cwd: outside,
      env: { ...process.env, BASE_URL: app.baseUrl, API_KEY: await app.apiKey('default') },
    });
    const out = JSON.parse(stdout) as { ids: string[]; listed: string[]; csv: string; missing: unknown };
    const [a, again, b] = out.ids;
    expect(again).toBe(a);
    expect(out.listed).toEqual([b, a]);
    expect(out.csv).toContain('a@example.com');
    expect(out.csv).toContain('second');
    expect(out.missing).toEqual([404, expect.stringMatching(/NOT_FOUND|MALFORMED/)]);
  });

  it("type-checks a consumer's code under NodeNext and Bundler resolution, and catches its mistakes", async () => {
    await writeFile(
      join(outside, 'good.ts'),
      `import { createFormgateClient, type SubmissionDto, type OpenApiPaths } from '@formgate/client';
       const fg = createFormgateClient({ baseUrl: 'https://forms.example', apiKey: 'fg_x' });
       export async function newest(formId: string): Promise<SubmissionDto | undefined> {
         return (await fg.submissions.page(formId, { limit: 1, spam: false })).data[0];
       }
       export type ListQuery = OpenApiPaths['/api/v1/forms/{formId}/submissions']['get']['parameters']['query'];
       export const created = () => fg.webhooks.create('f', { url: 'https://example.com/hook' });`,
    );
    await writeFile(
      join(outside, 'bad.ts'),
      `import { createFormgateClient } from '@formgate/client';
       const fg = createFormgateClient({ baseUrl: 'https://forms.example' });
       export const a = fg.forms.create({ title: 'no name' });
       export const b = async () => (await fg.submissions.get('f', 's')).nope;`,
    );
    const tsc = async (file: string, resolution: 'NodeNext' | 'Bundler') => {
      const config = {
        compilerOptions: {
          strict: true,
          module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
          moduleResolution: resolution,
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: [file],
      };
      await writeFile(join(outside, 'tsconfig.json'), JSON.stringify(config));
      return run(process.execPath, [TSC, '-p', '.'], { cwd: outside }).then(
        () => ({ ok: true, output: '' }),
        (err: { stdout: string }) => ({ ok: false, output: err.stdout }),
      );
    };
    for (const resolution of ['NodeNext', 'Bundler'] as const) {
      expect(await tsc('good.ts', resolution)).toEqual({ ok: true, output: '' });
      const bad = await tsc('bad.ts', resolution);
      expect(bad.ok).toBe(false);
      expect(bad.output).toContain("'title' does not exist");
      expect(bad.output).toContain("Property 'nope' does not exist");
    }
  }, 60_000);
});
