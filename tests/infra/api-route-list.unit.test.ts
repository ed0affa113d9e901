import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withRouteList } from '../../packages/contracts/scripts/api-route-list.ts';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');

describe("docs/api.md's route list", () => {
  it('is the route table of packages/contracts/src/routes as it is now (regenerate: pnpm docs:api)', () => {
    expect(withRouteList(doc), "docs/api.md's route list is out of date: run `pnpm docs:api`").toBe(doc);
  });
});
