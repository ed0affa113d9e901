import { describe, expect, it } from 'vitest';
import { createSkipList, type TestRegistrar } from '../src/testing/contract-suite.ts';

function recording() {
  const ran: string[] = [];
  const skipped: string[] = [];
  const registrar: TestRegistrar = { run: (name) => void ran.push(name), skip: (name) => void skipped.push(name) };
  return { ran, skipped, registrar };
}

describe('contract suite skip lists', () => {
  it('registers a listed test as skipped with its reason in the name, and the others as tests', () => {
    const { ran, skipped, registrar } = recording();
    const list = createSkipList('Store contract: x', [{ reason: 'no transactions', tests: ['b'] }], registrar);
    for (const name of ['a', 'b', 'c']) list.it(name, () => {});
    expect(ran).toEqual(['a', 'c']);
    expect(skipped).toEqual(['b [skipped: no transactions]']);
    expect(list.verify).not.toThrow();
  });

  it('throws when the skip list names a test the suite does not have', () => {
    const { registrar } = recording();
    const list = createSkipList('Store contract: x', [{ reason: 'why', tests: ['a', 'renamed test'] }], registrar);
    list.it('a', () => {});
    expect(list.verify).toThrow(/Store contract: x.*renamed test/);
  });

  it('with no skip list every test runs', () => {
    const { ran, skipped, registrar } = recording();
    const list = createSkipList('Store contract: x', undefined, registrar);
    list.it('a', () => {});
    expect([ran, skipped]).toEqual([['a'], []]);
    expect(list.verify).not.toThrow();
  });
});
