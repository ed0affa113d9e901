import type { SubmissionField, SubmissionFile } from '@formgate/contracts';
import { IngestErrors } from '../ingest-errors.ts';
import type { IngestLimits } from '../limits.ts';

export interface ParsedBody {
  /** Every field in the order it was sent, reserved ones included. */
  fields: SubmissionField[];
  files: SubmissionFile[];
}

/** Checks one field against the limits and normalises it (lone surrogates → U+FFFD; NUL is refused). */
export function checkedField(name: string, value: string, limits: IngestLimits): SubmissionField {
  if (name.length > limits.maxFieldNameLength) throw IngestErrors.nameTooLong(limits.maxFieldNameLength);
  if (Buffer.byteLength(value) > limits.maxFieldValueBytes) {
    throw IngestErrors.valueTooLong(name, limits.maxFieldValueBytes);
  }
  if (name.includes('\u0000') || value.includes('\u0000')) throw IngestErrors.invalidCharacter(name);
  return { name: name.toWellFormed(), value: value.toWellFormed() };
}
