/**
 * Builds the runtime tree the production image copies (infra/docker/Dockerfile, ADR 47):
 *
 *   <out>/dist/<entry>.mjs       every entry point bundled by esbuild (ESM, shared code in dist/chunks/)
 *   <out>/web/dist/              the built dashboard (served by the gateway / embedded host)
 *   <out>/node_modules/          only the packages that cannot be bundled (EXTERNAL) and their production
 *                                dependencies, copied from this install (already built for the running Node)
 *   <out>/vendor/                single browser files of production dependencies the server sends as they are
 *                                (VENDORED: Scalar's bundle behind /docs/api, named by API_REFERENCE_BUNDLE)
 *   <out>/package.json           {"type":"module"} and the Node versions the tree runs on
 *
 * Usage: `pnpm build:runtime [out]` (default `.run/runtime`). Nothing of the workspace's TypeScript, dev
 * dependencies or tests ends up in the tree; `node dist/embedded.mjs` runs it from `<out>`.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { ENTRY_POINTS } from './entry-points.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Packages left out of the bundle, each with the workspace package that depends on it (where it resolves from).
 * better-sqlite3 is a native addon (a .node file found at run time through `bindings`). Everything else bundles:
 * kafkajs, mongodb/mongoose (their optional native add-ons — kerberos, snappy, … — are `require`d inside try and
 * are not installed here either), pino (no transports: it writes JSON to stdout), React Email, nodemailer,
 * altcha-lib and better-auth.
 */
export const EXTERNAL: Record<string, string> = { 'better-sqlite3': 'packages/store' };

/**
 * Production dependencies of the externals that are only used at install time, so not copied: better-sqlite3 is
 * copied already compiled, and prebuild-install is what downloads or builds it.
 */
const INSTALL_TIME_ONLY = new Set(['prebuild-install']);

/** Files of an external's package that a running process never reads (sources and objects of the native build). */
const NOT_AT_RUNTIME: Record<string, string[]> = {
  'better-sqlite3': [
    'deps',
    'src',
    'build/Release/obj',
    'build/Release/obj.target',
    'build/Release/test_extension.node',
  ],
};

/**
 * Browser files served as they are, each copied from a production dependency of a workspace package into
 * `<out>/<to>`; the process is told where (the Dockerfile's `ENV`), since the bundles cannot resolve packages.
 */
export const VENDORED = [
  {
    name: '@scalar/api-reference',
    from: 'gateway',
    file: 'dist/browser/standalone.js',
    to: 'vendor/scalar/standalone.js',
    env: 'API_REFERENCE_BUNDLE',
  },
] as const;

/**
 * The most the tree may weigh, in bytes of its files (20.6 MiB on 2026-11-24: bundles 11.5 MB, Scalar's bundle
 * 4.4 MB, better-sqlite3 4.7 MB, the dashboard 1 MB). `tests/integration/runtime-image.int.test.ts` fails above it:
 * a dependency that stops bundling, source maps or a stray package show there before they reach the image.
 */
export const RUNTIME_BUDGET_BYTES = 26 * 2 ** 20;

/** Bytes of the files under `dir` (what the image's `COPY` adds, directory entries aside). */
export function treeBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => statSync(join(dir, f)))
    .filter((s) => s.isFile())
    .reduce((sum, s) => sum + s.size, 0);
}

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** `name`'s package directory as `fromDir`'s code would resolve it (through pnpm's symlinks, to the real path). */
function packageDir(name: string, fromDir: string): string | null {
  const req = createRequire(join(fromDir, 'package.json'));
  for (const base of req.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (existsSync(join(dir, 'package.json'))) return realpathSync(dir);
  }
  return null;
}

/** Copies each external and its production dependencies (transitively) into `<out>/node_modules`, flat. */
function copyExternals(out: string): string[] {
  const copied = new Map<string, string>(); // name → version
  const visit = (name: string, fromDir: string, optional: boolean) => {
    if (INSTALL_TIME_ONLY.has(name)) return;
    const dir = packageDir(name, fromDir);
    if (!dir) {
      if (optional) return;
      throw new Error(`${name} (needed by ${fromDir}) is not installed`);
    }
    const pkg = readJson<PackageJson>(join(dir, 'package.json'));
    const seen = copied.get(name);
    if (seen === pkg.version) return;
    if (seen) throw new Error(`two versions of ${name} needed at run time (${seen}, ${pkg.version})`);
    copied.set(name, pkg.version);
    const target = join(out, 'node_modules', name);
    cpSync(dir, target, {
      recursive: true,
      dereference: true,
      // The package's own node_modules (pnpm links its dependencies there) is rebuilt flat by the visit below.
      filter: (src) => src === dir || !src.slice(dir.length + 1).startsWith('node_modules'),
    });
    for (const rel of NOT_AT_RUNTIME[name] ?? []) rmSync(join(target, rel), { recursive: true, force: true });
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const [name, from] of Object.entries(EXTERNAL)) visit(name, join(ROOT, from), false);
  return [...copied].map(([name, version]) => `${name}@${version}`).sort();
}

/** Copies each VENDORED file; throws if the package is not a production dependency of the workspace package. */
function copyVendored(out: string): string[] {
  return VENDORED.map(({ name, from, file, to }) => {
    const owner = readJson<PackageJson>(join(ROOT, from, 'package.json'));
    if (!owner.dependencies?.[name]) throw new Error(`${name} is not a production dependency of ${from}`);
    const dir = packageDir(name, join(ROOT, from));
    if (!dir) throw new Error(`${name} (needed by ${from}) is not installed`);
    mkdirSync(dirname(join(out, to)), { recursive: true });
    cpSync(join(dir, file), join(out, to));
    return `${name}@${readJson<PackageJson>(join(dir, 'package.json')).version} ${file} → ${to}`;
  });
}

export async function buildRuntime(out: string, opts: { web?: boolean } = {}): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRY_POINTS).map(([name, entry]) => ({ in: entry, out: name })),
    outdir: join(out, 'dist'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    // The tree runs on the production Node (24) and on the oldest supported one (20.19, what CI has).
    target: 'node20.19',
    jsx: 'automatic',
    external: Object.keys(EXTERNAL),
    // The CommonJS packages bundled into ESM still call require() for Node's built-ins and read __dirname.
    banner: {
      js: [
        "import { createRequire as __fgCreateRequire } from 'node:module';",
        "import { fileURLToPath as __fgFileURLToPath } from 'node:url';",
        "import { dirname as __fgDirname } from 'node:path';",
        'const require = __fgCreateRequire(import.meta.url);',
        'const __filename = __fgFileURLToPath(import.meta.url);',
        'const __dirname = __fgDirname(__filename);',
      ].join('\n'),
    },
    legalComments: 'none',
    minifySyntax: true,
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
  });
  if (result.errors.length > 0) throw new Error('esbuild failed');

  if (opts.web !== false) {
    execFileSync(
      'pnpm',
      ['exec', 'vite', 'build', '--outDir', join(out, 'web/dist'), '--emptyOutDir', '--logLevel', 'error'],
      {
        cwd: join(ROOT, 'web'),
        stdio: 'inherit',
      },
    );
  }

  const externals = copyExternals(out);
  const vendored = copyVendored(out);
  const root = readJson<{ engines: Record<string, string> }>(join(ROOT, 'package.json'));
  writeFileSync(
    join(out, 'package.json'),
    `${JSON.stringify(
      {
        name: 'formgate-runtime',
        private: true,
        type: 'module',
        engines: root.engines,
        description: 'Built by infra/docker/build-runtime.ts: bundles in dist/, the dashboard in web/dist/.',
        externals,
        vendored,
      },
      null,
      2,
    )}\n`,
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(import.meta.filename)) {
  const out = resolve(process.argv[2] ?? join(ROOT, '.run/runtime'));
  const started = Date.now();
  await buildRuntime(out, { web: !process.argv.includes('--no-web') });
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  process.stdout.write(
    `runtime tree in ${out}: ${mib(treeBytes(out))} MiB (budget ${mib(RUNTIME_BUDGET_BYTES)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
