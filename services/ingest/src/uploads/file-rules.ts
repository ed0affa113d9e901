import { type Form, MAX_SUBMISSION_FILE_BYTES } from '@formgate/contracts';
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';

const MiB = 1024 * 1024;
/** How many first bytes of a file the type check reads (what `file-type` needs for every format it knows). */
export const SNIFF_BYTES = 4100;

/** What a form takes: the largest file (bytes) and the types allowed (empty: any). */
export interface FileRules {
  maxFileBytes: number;
  allowedTypes: readonly string[];
}

/**
 * A form's file rules (issue 33): the smallest of the form's `files.maxFileMb`, its plan's `maxFileMb` and the
 * deployment's `maxFileBytes`, never above `MAX_SUBMISSION_FILE_BYTES`.
 */
export function fileRulesOf(form: Form, planMaxFileMb: number | null, limits: IngestLimits): FileRules {
  const { maxFileMb, allowedTypes } = form.settings.files;
  const maxFileBytes = Math.min(
    maxFileMb === null ? Number.POSITIVE_INFINITY : maxFileMb * MiB,
    planMaxFileMb === null ? Number.POSITIVE_INFINITY : planMaxFileMb * MiB,
    limits.maxFileBytes,
    MAX_SUBMISSION_FILE_BYTES,
  );
  return { maxFileBytes, allowedTypes };
}

/** Lower case, without parameters (`text/csv; charset=utf-8` → `text/csv`); `application/octet-stream` when empty. */
export function baseType(contentType: string): string {
  return contentType.split(';', 1)[0]?.trim().toLowerCase() || 'application/octet-stream';
}

/** Throws 415 `FILE_TYPE_NOT_ALLOWED` unless the form takes files of `type` (its base type). */
export function checkAllowedType(rules: FileRules, field: string, type: string) {
  if (rules.allowedTypes.length === 0) return;
  const [top] = type.split('/');
  if (!rules.allowedTypes.some((allowed) => allowed === type || allowed === `${top}/*`)) {
    throw IngestErrors.typeNotAllowed(field);
  }
}

/** Names browsers and systems give the same format. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'application/x-pdf': 'application/pdf',
  'application/x-zip-compressed': 'application/zip',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'image/x-icon': 'image/vnd.microsoft.icon',
};
/** Containers whose detected type does not name what is inside: a declared type within the family is believed. */
const FAMILIES: Record<string, (declared: string) => boolean> = {
  'application/zip': (d) =>
    d === 'application/zip' ||
    d.startsWith('application/vnd.openxmlformats-officedocument.') ||
    d.startsWith('application/vnd.oasis.opendocument.') ||
    d === 'application/epub+zip' ||
    d === 'application/java-archive',
  'application/x-cfb': (d) =>
    d === 'application/msword' || d.startsWith('application/vnd.ms-') || d === 'application/x-msi',
};
const textual = (type: string) =>
  type.startsWith('text/') || type === 'application/json' || type === 'application/xml' || type.endsWith('+xml');
/**
 * Windows browsers send a `.csv` as `application/vnd.ms-excel`: a declared type that may be text, never refused for
 * lack of a binary signature.
 */
const MAY_BE_TEXT = new Set(['application/vnd.ms-excel']);

const normal = (type: string) => ALIASES[type] ?? type;

/**
 * Whether the first bytes of a file (`head`, up to `SNIFF_BYTES`) agree with the type it was sent as: a binary
 * format `file-type` recognises must be the declared one (or within its container family); a declared binary type it
 * knows must be recognised. Text formats, unknown types and `application/octet-stream` are not checked.
 */
export async function typeMatches(declared: string, head: Uint8Array): Promise<boolean> {
  const type = normal(baseType(declared));
  if (type === 'application/octet-stream' || head.length === 0) return true;
  const detected = await fileTypeFromBuffer(head);
  if (!detected) return textual(type) || MAY_BE_TEXT.has(type) || !supportedMimeTypes.has(type as never);
  const found = normal(detected.mime);
  if (found === type) return true;
  if (textual(found)) return textual(type);
  return FAMILIES[found]?.(type) ?? false;
}
