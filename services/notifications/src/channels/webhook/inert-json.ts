/**
 * JSON with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes: the same value for any JSON parser, and inert
 * if a receiver pastes the body into HTML or a script.
 */
export function toInertJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
