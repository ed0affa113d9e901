import { resolve } from 'node:path';
import { packagesLoadedBy } from '@formgate/kit/testing';
import { describe, expect, it } from 'vitest';

/** Resolved from this package: `@formgate/forms` and its subpaths as a host imports them. */
const FORMS = resolve(import.meta.dirname, '..');
const MONGO = ['mongodb', 'mongoose'];

// Each test starts a Node process (tsx): seconds on a loaded 2-core machine, beyond the unit default of 5 s.
describe('what importing the forms service loads', { timeout: 60_000 }, () => {
  it('@formgate/forms (the service, its SQLite adapters and migrations) loads no MongoDB driver', async () => {
    const loaded = await packagesLoadedBy('@formgate/forms', FORMS);
    expect(loaded).toContain('express');
    expect(loaded.filter((name) => MONGO.includes(name))).toEqual([]);
  });

  it('the Mongo adapters and migrations load from @formgate/forms/mongo', async () => {
    expect(await packagesLoadedBy('@formgate/forms/mongo', FORMS)).toContain('mongodb');
  });
});
