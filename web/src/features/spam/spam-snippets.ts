import type { CaptchaProvider } from '@formgate/contracts';

/*
 * The page-side pieces of the spam layers that need the page's cooperation (issue 14): the time-trap's signed render
 * timestamp and the captcha widgets. Everything from the form or the person (the endpoint, a site key) is escaped
 * for where it lands: an HTML attribute, or a JavaScript string inside a <script>.
 */

/** The hidden field the time-trap reads, filled from `GET /f/{key}/timestamp` (its JSON answer's `value`; `field` names it). */
export const TIME_TRAP_FIELD = '_formgate_ts';

/** `&`, `<`, `>`, `"` and `'` as entities: safe inside a double- or single-quoted HTML attribute and as text. */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);

/** A JavaScript string literal that cannot end its <script> element (`</script>`, `<!--`). */
export const jsString = (value: string) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028|\u2029/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));

export interface SpamSnippetOptions {
  /** The form's endpoint, a full URL (`https://…/f/{key}`). */
  endpoint: string;
  timeTrap: boolean;
  captcha: CaptchaProvider | 'none';
  /** The provider's public site key (Turnstile, hCaptcha, reCAPTCHA). */
  siteKey: string;
  /** reCAPTCHA v3 (invisible, scored) rather than v2 (the checkbox). */
  recaptchaV3: boolean;
}

/** An HTML form with the chosen layers' pieces; each value escaped for its place. */
export function spamSnippet(o: SpamSnippetOptions): string {
  const action = escapeHtml(o.endpoint);
  const siteKey = escapeHtml(o.siteKey.trim() || 'YOUR_SITE_KEY');
  const head: string[] = [];
  const inside: string[] = [];
  const after: string[] = [];
  if (o.timeTrap) {
    inside.push(
      `  <!-- time-trap: the signed moment the page was shown; too fast a submission is spam -->`,
      `  <input type="hidden" name="${TIME_TRAP_FIELD}" id="formgate-timestamp">`,
    );
    after.push(`<script>
  fetch(${jsString(`${o.endpoint}/timestamp`)})
    .then((response) => response.json())
    .then((answer) => { document.getElementById('formgate-timestamp').value = answer.value; });
</script>`);
  }
  switch (o.captcha) {
    case 'altcha':
      // The `altcha` package's widget v3 (`challenge`, PBKDF2): ingest's challenges are altcha-lib 2's v2 protocol,
      // which widget v2 (`challengeurl`, SHA `maxnumber` challenges) cannot solve. Or `import 'altcha';` when bundled.
      head.push(
        `<script async defer type="module" src="https://cdn.jsdelivr.net/npm/altcha@3/dist/main/altcha.min.js"></script>`,
      );
      inside.push(
        `  <!-- ALTCHA proof-of-work: self-hosted, no third party; the solution is sent as "altcha" -->`,
        `  <altcha-widget challenge="${escapeHtml(`${o.endpoint}/altcha`)}" name="altcha"></altcha-widget>`,
      );
      break;
    case 'turnstile':
      head.push(`<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>`);
      inside.push(`  <div class="cf-turnstile" data-sitekey="${siteKey}"></div>`);
      break;
    case 'hcaptcha':
      head.push(`<script src="https://js.hcaptcha.com/1/api.js" async defer></script>`);
      inside.push(`  <div class="h-captcha" data-sitekey="${siteKey}"></div>`);
      break;
    case 'recaptcha':
      if (o.recaptchaV3) {
        head.push(
          `<script src="https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(o.siteKey.trim() || 'YOUR_SITE_KEY')}"></script>`,
        );
        inside.push(`  <input type="hidden" name="g-recaptcha-response" id="formgate-recaptcha">`);
        after.push(`<script>
  const form = document.getElementById('formgate-form');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    grecaptcha.ready(() => {
      grecaptcha.execute(${jsString(o.siteKey.trim() || 'YOUR_SITE_KEY')}, { action: 'submit' }).then((token) => {
        document.getElementById('formgate-recaptcha').value = token;
        form.submit();
      });
    });
  });
</script>`);
      } else {
        head.push(`<script src="https://www.google.com/recaptcha/api.js" async defer></script>`);
        inside.push(`  <div class="g-recaptcha" data-sitekey="${siteKey}"></div>`);
      }
      break;
    case 'none':
      break;
  }
  return [
    ...head,
    `<form id="formgate-form" action="${action}" method="POST">`,
    `  <label>Email <input name="email" type="email" required></label>`,
    `  <label>Message <textarea name="message"></textarea></label>`,
    ...inside,
    `  <button type="submit">Send</button>`,
    `</form>`,
    ...after,
  ].join('\n');
}
