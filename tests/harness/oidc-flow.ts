/**
 * Cookies per origin (scheme, host and port), as a browser would carry them through a sign-in. `Path` and `Domain`
 * are ignored: every cookie an origin set goes back to that origin.
 */
export class CookieJar {
  readonly #origins = new Map<string, Map<string, string>>();

  /** Takes the cookies of every `Set-Cookie` header of `response`, received from `url`. */
  store(url: string | URL, response: Response): void {
    for (const header of response.headers.getSetCookie()) this.set(url, header);
  }

  /** Applies one `Set-Cookie` header value: stores the cookie, or deletes it when `Max-Age` or `Expires` ended it. */
  set(url: string | URL, setCookie: string): void {
    const [pair = '', ...attributes] = setCookie.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let expired = false;
    let maxAgeSeen = false;
    for (const attribute of attributes) {
      const [key = '', raw = ''] = attribute.split('=', 2).map((s) => s.trim());
      if (key.toLowerCase() === 'max-age') {
        maxAgeSeen = true;
        expired = Number(raw) <= 0;
      } else if (key.toLowerCase() === 'expires' && !maxAgeSeen) {
        expired = Date.parse(raw) <= Date.now();
      }
    }
    const origin = new URL(url).origin;
    const cookies = this.#origins.get(origin) ?? new Map<string, string>();
    this.#origins.set(origin, cookies);
    if (expired) cookies.delete(name);
    else cookies.set(name, value);
  }

  /** The value of cookie `name` for the origin of `url`. */
  get(url: string | URL, name: string): string | undefined {
    return this.#origins.get(new URL(url).origin)?.get(name);
  }

  /** The `Cookie` request header for `url` (empty when the origin has no cookies). */
  header(url: string | URL): string {
    const cookies = this.#origins.get(new URL(url).origin) ?? new Map<string, string>();
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decodeHtml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return entities[ref.toLowerCase()] ?? whole;
    return String.fromCodePoint(
      ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1)),
    );
  });

const attribute = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? decodeHtml(match[1] ?? match[2] ?? match[3] ?? '') : undefined;
};

/** The first `<form method="post">` of an HTML page: its action and its (hidden) input fields. */
function postForm(html: string, base: string) {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const tag = form[0].slice(0, form[0].indexOf('>') + 1);
  if (attribute(tag, 'method')?.toLowerCase() !== 'post') return undefined;
  const fields = new URLSearchParams();
  for (const [input] of (form[1] ?? '').matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(input, 'name');
    if (name !== undefined) fields.append(name, attribute(input, 'value') ?? '');
  }
  return { action: new URL(attribute(tag, 'action') ?? base, base), fields };
}

const sameEndpoint = (a: URL, b: URL) => a.origin === b.origin && a.pathname === b.pathname;

/**
 * Follows redirects (GET, redirect: 'manual') from `url`, carrying cookies in `jar`, until a response is not a 3xx
 * or its Location's origin+pathname equals `stopAt` (absolute URL) — then returns { url (the final absolute URL),
 * status, response }. An HTML page with a `<form method="post">` (e.g. a `form_post` response) is submitted with its
 * inputs; when its action is `stopAt`, the result's `url` is that action with the form fields as query parameters.
 * At most 20 hops; throws with the chain of URLs otherwise (and when a request fails).
 */
export async function followRedirects(
  url: string,
  jar: CookieJar,
  stopAt?: string,
): Promise<{ url: string; status: number; response: Response }> {
  const stop = stopAt === undefined ? undefined : new URL(stopAt);
  const chain: string[] = [];
  let current = new URL(url);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop <= 20; hop++) {
    chain.push(`${method} ${current.href}`);
    const cookie = jar.header(current);
    const response = await fetch(current, {
      method,
      body,
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    }).catch((cause: unknown) => {
      throw new Error(`followRedirects: request failed:\n${chain.join('\n')}`, { cause });
    });
    jar.store(current, response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, current);
      if (stop && sameEndpoint(next, stop)) return { url: next.href, status: response.status, response };
      await response.body?.cancel();
      // 307 and 308 repeat the request as it was; every other redirect becomes a GET.
      if (response.status !== 307 && response.status !== 308) {
        method = 'GET';
        body = undefined;
      }
      current = next;
      continue;
    }
    const form =
      response.ok && response.headers.get('content-type')?.includes('text/html')
        ? postForm(await response.clone().text(), current.href)
        : undefined;
    if (!form) return { url: current.href, status: response.status, response };
    if (stop && sameEndpoint(form.action, stop)) {
      const target = new URL(form.action);
      for (const [name, value] of form.fields) target.searchParams.append(name, value);
      return { url: target.href, status: response.status, response };
    }
    method = 'POST';
    body = form.fields;
    current = form.action;
  }
  throw new Error(`followRedirects: more than 20 hops:\n${chain.join('\n')}`);
}
