import { z } from 'zod';

/**
 * An email address as every request takes it, declared in the OpenAPI document (`format: email`, this pattern and
 * the length) as the server checks it, so that a generated address is accepted exactly when the document calls it
 * valid: a dot-atom local part (no leading, trailing or doubled dot) and a domain of labels of letters, digits and
 * inner hyphens, each at most 63 long, ending in a top-level label of letters. Written without lookarounds, which
 * JSON Schema's regular expressions need not support.
 */
export const EMAIL_ADDRESS_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** The longest address a mail server must accept in a path (RFC 5321: 256 with its angle brackets). */
export const MAX_EMAIL_ADDRESS_LENGTH = 254;
/** RFC 5321's longest local part. */
const MAX_LOCAL_PART_LENGTH = 64;

/** An email address (see `EMAIL_ADDRESS_PATTERN`); `message` is the error a form shows. */
export const emailAddress = (message = 'Enter a valid email address') =>
  z
    .email({ pattern: EMAIL_ADDRESS_PATTERN, message })
    .max(MAX_EMAIL_ADDRESS_LENGTH, message)
    .refine((address) => address.lastIndexOf('@') <= MAX_LOCAL_PART_LENGTH, message);
