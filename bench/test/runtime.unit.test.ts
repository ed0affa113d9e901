import { describe, expect, it } from 'vitest';
import { parseBenchNode } from '../lib/runtime.ts';

describe('parseBenchNode', () => {
  it('measures on the production image’s Node unless told to use this machine’s', () => {
    expect(parseBenchNode(undefined)).toBe('production');
    expect(parseBenchNode('production')).toBe('production');
    expect(parseBenchNode('system')).toBe('system');
  });

  it('rejects any other runtime', () => {
    expect(() => parseBenchNode('20')).toThrow('--node must be production or system');
  });
});
