import { describe, expect, it } from 'vitest';
import { loadTestRunConfig } from '../src/testing/config.ts';
import { freePort } from '../src/testing/ports.ts';

describe('freePort', () => {
  it('never hands out the same port twice in one process, and stays in its worker’s slice of 10000–28999', async () => {
    const ports = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(300);
    const pool = loadTestRunConfig().VITEST_POOL_ID ?? 0;
    expect(pool, 'vitest numbers its workers from 1').toBeGreaterThan(0);
    const size = Math.floor(19_000 / 8);
    const first = 10_000 + ((pool - 1) % 8) * size;
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(first);
      expect(p).toBeLessThan(first + size);
    }
  });
});
