import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { type BlobStore, BlobTooLargeError } from '../src/blob-store.ts';

const key = () => randomBytes(12).toString('base64url');

/** The guarantees of `BlobStore` (see its JSDoc), checked against one adapter. */
export function runBlobStoreContract(target: {
  name: string;
  create: () => Promise<BlobStore>;
  skip?: ContractSkip[];
}) {
  describeContract(`BlobStore contract: ${target.name}`, target.skip, (it) => {
    it('stores a stream and returns the same bytes and metadata', async () => {
      const store = await target.create();
      const k = key();
      const bytes = randomBytes(300_000);
      const { size } = await store.put(k, Readable.from([bytes]), { contentType: 'image/png', filename: 'a.png' }, 1e6);
      expect(size).toBe(bytes.length);
      const got = await store.get(k);
      expect(got?.info).toEqual({ contentType: 'image/png', filename: 'a.png' });
      expect(got?.size).toBe(bytes.length);
      expect((await buffer(got?.stream as Readable)).equals(bytes)).toBe(true);
    });

    it('rejects a stream over the limit and leaves nothing behind', async () => {
      const store = await target.create();
      const k = key();
      const chunks = [randomBytes(600), randomBytes(600)];
      await expect(
        store.put(k, Readable.from(chunks), { contentType: 'text/plain', filename: 'x' }, 1_000),
      ).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.get(k)).toBeNull();
    });

    it('returns null for unknown keys and deletes idempotently', async () => {
      const store = await target.create();
      const k = key();
      expect(await store.get(k)).toBeNull();
      await store.put(k, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', filename: 'x' }, 10);
      await store.delete(k);
      await store.delete(k);
      expect(await store.get(k)).toBeNull();
    });
    it('lists the keys stored before a time, in pages that follow each other', async () => {
      const store = await target.create();
      const info = { contentType: 'text/plain', filename: 'x.txt' };
      const older = [key(), key(), key()];
      for (const k of older) await store.put(k, Readable.from([Buffer.from(k)]), info, 1e3);
      // Object stores keep times to the second.
      await new Promise((r) => setTimeout(r, 1_100));
      const cut = new Date();
      await new Promise((r) => setTimeout(r, 1_100));
      const newer = key();
      await store.put(newer, Readable.from([Buffer.from('new')]), info, 1e3);
      const listed = async (before: Date, limit: number) => {
        const all: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 10_000; pages++) {
          const page: { keys: string[]; next: string | null } = await store.listBefore(before, cursor, limit);
          expect(page.keys.length).toBeLessThanOrEqual(limit);
          all.push(...page.keys);
          if (page.next === null) return all;
          cursor = page.next;
        }
        throw new Error('no last page');
      };
      const mine = new Set([...older, newer]);
      // Other tests' blobs may share the store: only this test's keys are compared.
      const beforeCut = (await listed(cut, 2)).filter((k) => mine.has(k));
      expect(beforeCut).toEqual([...older].sort());
      const everything = (await listed(new Date(Date.now() + 60_000), 1)).filter((k) => mine.has(k));
      expect(everything).toEqual([...older, newer].sort());
      await store.delete(older[0] as string);
      expect((await listed(cut, 50)).filter((k) => mine.has(k))).toEqual(older.slice(1).sort());
    });
  });
}
