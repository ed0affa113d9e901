import { resolve } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

/**
 * No import cycle among product sources, type imports and dynamic `import()` included: a cycle means two modules
 * that cannot be read, tested or moved apart. Break one by moving what both need to the module it belongs in.
 * Workspace imports (`@formgate/kit`) resolve to their sources, so a cycle across packages counts too.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = [
  'packages/*/src/**/*.{ts,tsx}',
  'services/*/src/**/*.{ts,tsx}',
  'gateway/src/**/*.{ts,tsx}',
  'hosts/*/src/**/*.{ts,tsx}',
  'web/src/**/*.{ts,tsx}',
];

const parse = (globs: string[]) =>
  parseDependencyTree(globs, {
    context: ROOT,
    cwd: ROOT,
    tsconfig: resolve(ROOT, 'tsconfig.json'),
    transform: false,
    exclude: /node_modules/,
  });

describe('import graph of product sources', () => {
  it('has no cycle', async () => {
    const tree = await parse(SOURCES);
    const sources = Object.keys(tree).filter((file) => !file.includes('node_modules'));
    expect(sources.length).toBeGreaterThan(400);
    // An import the parser could not follow would hide the cycles through it.
    const unresolved = Object.values(tree)
      .flatMap((deps) => deps ?? [])
      .filter((dep) => dep.id === null && (dep.request.startsWith('.') || dep.request.startsWith('@formgate/')))
      .map((dep) => `${dep.issuer} imports ${dep.request}`);
    expect(unresolved).toEqual([]);
    expect(parseCircular(tree).map((cycle) => cycle.join(' -> '))).toEqual([]);
  }, 60_000);

  // Libraries are below what composes them: a package (its sources, scripts or tests) that needs something of the
  // gateway, a service or a host needs it moved into a package (the route table lives in @formgate/contracts).
  it('has no arrow from packages/ up to gateway/, services/ or hosts/', async () => {
    const tree = await parse(['packages/*/{src,scripts,test}/**/*.{ts,tsx,mjs}']);
    const upward = Object.entries(tree)
      .filter(([file]) => file.startsWith('packages/'))
      .flatMap(([file, deps]) =>
        (deps ?? [])
          .filter((dep) => dep.id !== null && /^(gateway|services|hosts)\//.test(dep.id))
          .map((dep) => `${file} imports ${dep.request}`),
      );
    expect(upward).toEqual([]);
  }, 60_000);
});
