import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../src/limits.ts';
import { checkAllowedType, fileRulesOf, typeMatches } from '../src/uploads/file-rules.ts';
import { createUploadTokens } from '../src/uploads/upload-tokens.ts';

const MiB = 1024 * 1024;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n');
const ZIP = Buffer.from('504b0304140000000800', 'hex');
const form = (files: Form['settings']['files']): Form => ({
  id: 'f1',
  orgId: 'o1',
  name: 'F',
  slug: 'f',
  key: 'k',
  settings: { ...DEFAULT_FORM_SETTINGS, files },
  createdAt: '',
  updatedAt: '',
  version: 1,
});

describe('file rules (issue 33)', () => {
  it("take the smallest of the form's, the plan's and the deployment's size limits", () => {
    const limits = DEFAULT_LIMITS;
    expect(fileRulesOf(form({ maxFileMb: null, allowedTypes: [] }), null, limits).maxFileBytes).toBe(100 * MiB);
    expect(fileRulesOf(form({ maxFileMb: 20, allowedTypes: [] }), null, limits).maxFileBytes).toBe(20 * MiB);
    expect(fileRulesOf(form({ maxFileMb: 50, allowedTypes: [] }), 10, limits).maxFileBytes).toBe(10 * MiB);
    expect(fileRulesOf(form({ maxFileMb: 5, allowedTypes: [] }), 10, limits).maxFileBytes).toBe(5 * MiB);
    expect(
      fileRulesOf(form({ maxFileMb: null, allowedTypes: [] }), null, { ...limits, maxFileBytes: MiB }).maxFileBytes,
    ).toBe(MiB);
  });

  it('allow exact types and whole top-level types, anything when none is listed', () => {
    const rules = { maxFileBytes: MiB, allowedTypes: ['application/pdf', 'image/*'] };
    expect(() => checkAllowedType(rules, 'f', 'application/pdf')).not.toThrow();
    expect(() => checkAllowedType(rules, 'f', 'image/webp')).not.toThrow();
    expect(() => checkAllowedType(rules, 'f', 'text/html')).toThrow(
      expect.objectContaining({ code: 'FILE_TYPE_NOT_ALLOWED', field: 'f' }),
    );
    expect(() => checkAllowedType(rules, 'f', 'application/pdfx')).toThrow();
    expect(() => checkAllowedType({ maxFileBytes: MiB, allowedTypes: [] }, 'f', 'text/html')).not.toThrow();
  });

  it('check a file’s first bytes against its declared type', async () => {
    expect(await typeMatches('image/png', PNG)).toBe(true);
    expect(await typeMatches('image/png', PDF)).toBe(false);
    expect(await typeMatches('application/pdf', PNG)).toBe(false);
    // A known binary type must be recognised; text is taken as sent.
    expect(await typeMatches('image/png', Buffer.from('hello, not an image'))).toBe(false);
    expect(await typeMatches('text/csv', Buffer.from('a,b\n1,2\n'))).toBe(true);
    expect(await typeMatches('text/plain', PDF)).toBe(false);
    // Aliases, parameters, containers, the generic type and Windows' CSV.
    expect(await typeMatches('image/x-png', PNG)).toBe(true);
    expect(await typeMatches('application/pdf; name=x', PDF)).toBe(true);
    expect(await typeMatches('application/vnd.openxmlformats-officedocument.wordprocessingml.document', ZIP)).toBe(
      true,
    );
    expect(await typeMatches('application/zip', ZIP)).toBe(true);
    expect(await typeMatches('application/octet-stream', PNG)).toBe(true);
    expect(await typeMatches('application/vnd.ms-excel', Buffer.from('a;b\n1;2\n'))).toBe(true);
    expect(await typeMatches('image/png', Buffer.alloc(0))).toBe(true);
  });
});

describe('upload tokens', () => {
  const tokens = createUploadTokens('an-ingest-secret-of-at-least-32-characters');
  const file = { field: 'cv', blobKey: 'key12345678', size: 10, contentType: 'application/pdf', filename: 'cv.pdf' };

  it('open only for their form, before they expire, unaltered', () => {
    const draft = tokens.signDraft('f1', 'idem-1', [file], 1_000);
    expect(tokens.openDraft(draft, 'f1', 999)).toEqual({ idempotencyKey: 'idem-1', files: [file] });
    expect(tokens.openDraft(draft, 'f2', 999)).toBeUndefined();
    expect(tokens.openDraft(draft, 'f1', 1_001)).toBeUndefined();
    expect(tokens.openDraft(`${draft.slice(0, -2)}AA`, 'f1', 999)).toBeUndefined();
    const put = tokens.signPut('f1', file, 1_000);
    expect(tokens.openPut(put, 'f1', 'key12345678', 999)).toEqual(file);
    expect(tokens.openPut(put, 'f1', 'otherkey123', 999)).toBeUndefined();
    // Ten files with the longest names, in characters that take the most room, still open.
    const long = Array.from({ length: 10 }, (_, i) => ({
      ...file,
      blobKey: `key${i}abcdefgh`,
      field: '\u0001'.repeat(256),
      filename: '履'.repeat(255),
    }));
    expect(tokens.openDraft(tokens.signDraft('f1', 'idem-1', long, 1_000), 'f1', 999)?.files).toEqual(long);
    // One kind never passes as the other.
    expect(tokens.openDraft(put, 'f1', 999)).toBeUndefined();
    expect(tokens.openPut(draft, 'f1', 'key12345678', 999)).toBeUndefined();
  });
});
