import { describe, expect, it } from 'vitest';
import { freePort } from '../src/testing/ports.ts';

describe('freePort', () => {
  it('never hands out the same port twice in one process, and stays in its worker’s slice of 10000–28999', async () => {
    const ports = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(300);
    const pool = Number(process.env.VITEST_POOL_ID);
    const size = Math.floor(19_000 / 8);
    const first = 10_000 + ((pool - 1) % 8) * size;
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(first);
      expect(p).toBeLessThan(first + size);
    }
  });
});
