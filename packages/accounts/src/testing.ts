import type { AdapterWrapper } from './adapter-guard.ts';

type Mode = 'ok' | 'fail' | 'hang';

/**
 * A fault injector for the accounts database, for tests: `wrap` goes to `createAccounts({ wrapAdapter })` and sits
 * between better-auth's adapter and the guard (deadline, unreachability). `fail()` makes every call fail as a
 * refused connection does, `hang()` makes every call wait forever (so the guard's deadline decides), `heal()`
 * restores the real database and fails the calls still hanging.
 */
export function createAdapterFaults() {
  let mode: Mode = 'ok';
  const hanging = new Set<(err: Error) => void>();
  const unreachable = () =>
    Object.assign(new Error('accounts database unreachable (injected fault)'), { code: 'ECONNREFUSED' });
  const wrap: AdapterWrapper = (adapter) =>
    new Proxy(adapter, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (mode === 'fail') return Promise.reject(unreachable());
          if (mode === 'hang') return new Promise((_resolve, reject) => hanging.add(reject));
          return value.apply(target, args);
        };
      },
    });
  return {
    wrap,
    fail() {
      mode = 'fail';
    },
    hang() {
      mode = 'hang';
    },
    heal() {
      mode = 'ok';
      for (const reject of hanging) reject(unreachable());
      hanging.clear();
    },
  };
}

export type AdapterFaults = ReturnType<typeof createAdapterFaults>;
