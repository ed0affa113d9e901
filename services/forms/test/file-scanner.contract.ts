import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type FileScanner, ScannerUnavailableError } from '../src/files/file-scanner.ts';

export interface FileScannerSubject {
  scanner: FileScanner;
  /** A string the scanner reports as malware wherever it appears in a file, and the name it reports. */
  malware: { sample: string; signature: string };
  /** The largest stream the scanner judges (its size limit). */
  maxBytes: number;
  /** Takes the scanner down and brings it back (an outage). */
  outage: { stop(): Promise<void>; start(): Promise<void> };
}

const MiB = 1024 * 1024;

/** A stream of `size` bytes in 1 MiB chunks, `insert` placed at `at`. */
function bytes(size: number, insert?: { text: string; at: number }) {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < size; offset += MiB) {
        const chunk = Buffer.alloc(Math.min(MiB, size - offset), 0x61);
        if (insert && insert.at >= offset && insert.at < offset + chunk.length) {
          Buffer.from(insert.text).copy(chunk, insert.at - offset);
        }
        yield chunk;
      }
    })(),
  );
}

/** The guarantees of `FileScanner` (`file-scanner.ts`), run against every adapter. */
export function runFileScannerContract(name: string, subject: () => FileScannerSubject) {
  describe(`FileScanner contract: ${name}`, () => {
    it('finds nothing in a harmless file, an empty one included', async () => {
      const { scanner } = subject();
      expect(await scanner.scan(Readable.from([Buffer.from('name,email\nAda,ada@example.com\n')]), 32)).toEqual({
        status: 'clean',
      });
      expect(await scanner.scan(Readable.from([]), 0)).toEqual({ status: 'clean' });
    });

    it('names the malware it finds, at the start of a file or deep inside a large one', async () => {
      const { scanner, malware } = subject();
      expect(await scanner.scan(Readable.from([Buffer.from(malware.sample)]), malware.sample.length)).toEqual({
        status: 'infected',
        signature: malware.signature,
      });
      const deep = await scanner.scan(bytes(12 * MiB, { text: malware.sample, at: 9 * MiB + 17 }), 12 * MiB);
      expect(deep).toEqual({ status: 'infected', signature: malware.signature });
    });

    it('scans files concurrently, each on its own', async () => {
      const { scanner, malware } = subject();
      const verdicts = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          i % 2
            ? scanner.scan(Readable.from([Buffer.from(malware.sample)]), malware.sample.length)
            : scanner.scan(bytes(2 * MiB + i), 2 * MiB + i),
        ),
      );
      expect(verdicts.map((v) => v.status)).toEqual(['clean', 'infected', 'clean', 'infected', 'clean', 'infected']);
    });

    it('answers failed, not clean, for a file over its size limit', async () => {
      const { scanner, maxBytes } = subject();
      const verdict = await scanner.scan(bytes(maxBytes + 3 * MiB), maxBytes + 3 * MiB);
      expect(verdict.status).toBe('failed');
      // Up to the limit, judged.
      expect(await scanner.scan(bytes(maxBytes), maxBytes)).toEqual({ status: 'clean' });
    });

    it('rejects as unavailable when the file cannot be read to its end', async () => {
      const { scanner } = subject();
      const broken = new Readable({ read() {} });
      broken.push(randomBytes(1024));
      setTimeout(() => broken.destroy(new Error('the store went away')), 20);
      await expect(scanner.scan(broken, 1_000_000)).rejects.toBeInstanceOf(ScannerUnavailableError);
    });

    it('rejects as unavailable while the scanner is down, and judges again once it is back', async () => {
      const { scanner, outage, malware } = subject();
      await outage.stop();
      try {
        expect(await scanner.ping()).toBe(false);
        await expect(
          scanner.scan(Readable.from([Buffer.from(malware.sample)]), malware.sample.length),
        ).rejects.toBeInstanceOf(ScannerUnavailableError);
      } finally {
        await outage.start();
      }
      expect(await scanner.ping()).toBe(true);
      expect((await scanner.scan(Readable.from([Buffer.from(malware.sample)]), malware.sample.length)).status).toBe(
        'infected',
      );
    });
  });
}
