import { z } from 'zod';

/**
 * Text a request takes trimmed, declared as the server checks it: at most `max` characters as sent, at least one of
 * them not a space (the OpenAPI document's `maxLength` and `pattern`), then kept without its surrounding spaces. The
 * checks come before the trimming so that what the document calls valid is exactly what is accepted.
 */
export const trimmedText = (max: number, messages: { empty?: string; tooLong?: string } = {}) =>
  z
    .string()
    .max(max, messages.tooLong)
    .regex(/\S/, messages.empty ?? 'Enter some text')
    .trim();
