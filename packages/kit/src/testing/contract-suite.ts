import { beforeAll, describe, it as vitestIt } from 'vitest';

/** Tests of a contract suite that one adapter does not run, and why (Hono's `runTest({ skip })` idiom). */
export interface ContractSkip {
  reason: string;
  tests: string[];
}

type TestFn = () => unknown;
export type ContractIt = (name: string, fn: TestFn, timeout?: number) => void;

/** Where tests are registered: vitest's `it` and `it.skip`. */
export interface TestRegistrar {
  run(name: string, fn: TestFn, timeout?: number): void;
  skip(name: string, fn: TestFn): void;
}

const vitestRegistrar: TestRegistrar = {
  run: (name, fn, timeout) => vitestIt(name, fn, timeout),
  skip: (name, fn) => vitestIt.skip(name, fn),
};

/**
 * The `it` of one suite: a test named in `skip` is registered skipped, its reason in its name. `verify()` throws
 * when `skip` names a test the suite never registered (a renamed or deleted test leaves no stale skip behind).
 */
export function createSkipList(suite: string, skip: readonly ContractSkip[] = [], registrar = vitestRegistrar) {
  const reasons = new Map<string, string>();
  for (const entry of skip) for (const test of entry.tests) reasons.set(test, entry.reason);
  const registered = new Set<string>();
  const it: ContractIt = (name, fn, timeout) => {
    registered.add(name);
    const reason = reasons.get(name);
    if (reason === undefined) registrar.run(name, fn, timeout);
    else registrar.skip(`${name} [skipped: ${reason}]`, fn);
  };
  const verify = () => {
    const unknown = [...reasons.keys()].filter((name) => !registered.has(name));
    if (unknown.length > 0) {
      throw new Error(`${suite}: the skip list names tests this suite does not have: ${unknown.join('; ')}`);
    }
  };
  return { it, verify };
}

/**
 * A contract suite: `body` registers its tests with the `it` it is given. The skip list is checked once the whole
 * file is collected (nested `describe`s are collected after their parent's body), before the first test runs.
 */
export function describeContract(
  name: string,
  skip: readonly ContractSkip[] | undefined,
  body: (it: ContractIt) => void,
) {
  describe(name, () => {
    const list = createSkipList(name, skip);
    beforeAll(list.verify);
    body(list.it);
  });
}
