import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBlobStore } from '../src/fs-blob-store.ts';
import { runBlobStoreContract } from './blob-store.contract.ts';

runBlobStoreContract({ name: 'fs', create: async () => createFsBlobStore(mkdtempSync(join(tmpdir(), 'fg-blobs-'))) });
