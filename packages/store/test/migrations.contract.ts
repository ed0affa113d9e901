import { describe, expect, it } from 'vitest';
import { MigrationError } from '../src/migrations.ts';

/** A store under test, seen through what every migrations runner must do the same. */
export interface MigrationsHarness {
  /** Runs `steps` (version i+1 records its name into the store's `log` when applied) for `scope`. */
  run(scope: string, steps: Step[]): Promise<number[]>;
  version(scope: string): Promise<number>;
  /** The names the store's own log holds for `scope`, in the order they were applied. */
  log(scope: string): Promise<string[]>;
}

export interface Step {
  name: string;
  fail?: boolean;
}

let n = 0;
const scope = () => `scope${++n}_${Date.now().toString(36)}`;

export function runMigrationsContract(name: string, create: () => MigrationsHarness) {
  describe(`${name} migrations`, () => {
    it('applies every migration once, in order, and records the version', async () => {
      const h = create();
      const s = scope();
      expect(await h.version(s)).toBe(0);
      expect(await h.run(s, [{ name: 'a' }, { name: 'b' }, { name: 'c' }])).toEqual([1, 2, 3]);
      expect(await h.version(s)).toBe(3);
      expect(await h.run(s, [{ name: 'a' }, { name: 'b' }, { name: 'c' }])).toEqual([]);
      expect(await h.log(s)).toEqual(['a', 'b', 'c']);
    });

    it('upgrades a store of the previous shape with only the migrations it lacks', async () => {
      const h = create();
      const s = scope();
      await h.run(s, [{ name: 'a' }]);
      expect(await h.run(s, [{ name: 'a' }, { name: 'b' }, { name: 'c' }])).toEqual([2, 3]);
      expect(await h.log(s)).toEqual(['a', 'b', 'c']);
    });

    it('stops at a failing migration: those before it stay recorded, it runs again on the next boot', async () => {
      const h = create();
      const s = scope();
      await expect(h.run(s, [{ name: 'a' }, { name: 'b', fail: true }, { name: 'c' }])).rejects.toThrow(/b failed/);
      expect(await h.version(s)).toBe(1);
      expect(await h.run(s, [{ name: 'a' }, { name: 'b' }, { name: 'c' }])).toEqual([2, 3]);
      expect(await h.log(s)).toEqual(['a', 'b', 'c']);
    });

    it('refuses a store a newer build has migrated further, and touches nothing', async () => {
      const h = create();
      const s = scope();
      await h.run(s, [{ name: 'a' }, { name: 'b' }]);
      await expect(h.run(s, [{ name: 'a' }])).rejects.toThrow(MigrationError);
      await expect(h.run(s, [{ name: 'a' }])).rejects.toThrow(/at version 2, this build knows migrations up to 1/);
      expect(await h.version(s)).toBe(2);
    });

    it('keeps the scopes that share a store apart', async () => {
      const h = create();
      const [s1, s2] = [scope(), scope()];
      await h.run(s1, [{ name: 'a' }, { name: 'b' }]);
      expect(await h.version(s2)).toBe(0);
      expect(await h.run(s2, [{ name: 'x' }])).toEqual([1]);
      expect(await h.log(s2)).toEqual(['x']);
    });
  });
}
