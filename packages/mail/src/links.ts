const URL_PATTERN = /https?:\/\/[^\s<>"'`]+/g;
// Punctuation that ends a sentence around a link rather than belonging to it.
const TRAILING = /[.,;:!?'"]+$/;

function trimTrailing(candidate: string): string {
  let url = candidate.replace(TRAILING, '');
  // A closing bracket belongs to the URL only when the URL opened it: `(see https://x/a_(b))`.
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
  ] as const) {
    while (url.endsWith(close) && url.split(close).length > url.split(open).length) {
      url = url.slice(0, -1).replace(TRAILING, '');
    }
  }
  return url;
}

/** The http(s) URLs of a plain-text body, in order of appearance, without duplicates. */
export function extractLinks(text: string): string[] {
  const links = (text.match(URL_PATTERN) ?? []).map(trimTrailing).filter((url) => URL.canParse(url));
  return [...new Set(links)];
}
