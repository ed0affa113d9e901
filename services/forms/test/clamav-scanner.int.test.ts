import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EICAR, EICAR_SIGNATURE, startClamd, type TestClamd } from '../../../tests/harness/clamd.ts';
import { clamavTarget, createClamavScanner } from '../src/files/clamav-scanner.ts';
import { runFileScannerContract } from './file-scanner.contract.ts';

const MAX_BYTES = 20 * 1024 * 1024;
let clamd: TestClamd;

beforeAll(async () => {
  clamd = await startClamd({ streamMaxBytes: MAX_BYTES });
});
afterAll(() => clamd?.close());

runFileScannerContract('ClamAV (clamd over its socket)', () => ({
  scanner: createClamavScanner({ address: clamd.address, timeoutMs: 10_000, maxBytes: MAX_BYTES }),
  malware: { sample: EICAR, signature: EICAR_SIGNATURE },
  maxBytes: MAX_BYTES,
  outage: clamd,
}));

describe('CLAMAV_ADDRESS', () => {
  it('takes a socket path or host:port, and nothing else', () => {
    expect(clamavTarget('/run/clamav/clamd.ctl')).toEqual({ path: '/run/clamav/clamd.ctl' });
    expect(clamavTarget('clamav:3310')).toEqual({ host: 'clamav', port: 3310 });
    expect(clamavTarget('[::1]:3310')).toEqual({ host: '::1', port: 3310 });
    for (const bad of ['clamav', 'clamav:0', 'clamav:70000', 'tcp://clamav:3310', 'relative/path'])
      expect(() => clamavTarget(bad)).toThrow(/CLAMAV_ADDRESS/);
  });
});
