// Builds @formgate/client for use without a bundler: dist/index.js and dist/react.js (ESM, no bare imports but
// `react` in react.js, a peer dependency) with esbuild, and the declarations with tsc (emitDeclarationOnly).
// `node scripts/build.mjs [--outdir DIR] [--no-types]`: the browser test builds the bundles only, into a temp dir.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--outdir');
const outdir = at >= 0 ? resolve(args[at + 1]) : join(root, 'dist');

await build({
  entryPoints: { index: join(root, 'src/index.ts'), react: join(root, 'src/react.ts') },
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: ['react'],
  // One copy of the client per file: react.js carries what it needs, index.js is independent of React.
  splitting: false,
  sourcemap: true,
  logLevel: 'warning',
});

if (!args.includes('--no-types')) {
  const tsc = join(root, '../../node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}
