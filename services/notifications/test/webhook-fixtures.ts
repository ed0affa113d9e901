import type { WebhookEvent, WebhookSubmission } from '../src/channels/webhook/index.ts';

/** Values a hostile submitter would try against chat markup, JSON consumers and HTML. */
export const HOSTILE = {
  script: '<script>alert(1)</script>',
  everyone: '<@everyone> and @everyone',
  here: '@here look',
  channel: '<!channel> <!here|here> <@U024BE7LH>',
  bold: '*bold* _it_ ~strike~ ||spoiler|| # heading',
  ticks: '```js\nfetch("x")``` and `code`',
  link: '<https://evil.example|click me> [click](https://evil.example) & co',
  long: 'x'.repeat(10_000),
};

export function hostileSubmission(overrides: Partial<WebhookSubmission> = {}): WebhookSubmission {
  return {
    id: 'sub_01HOSTILE',
    formId: 'frm_1',
    createdAt: '2026-03-01T12:00:00.000Z',
    fields: Object.entries(HOSTILE).map(([name, value]) => ({ name, value })),
    files: [{ field: 'cv', blobKey: 'b/1', filename: '<img src=x>.pdf', contentType: 'application/pdf', size: 10 }],
    spam: false,
    spamReasons: [],
    held: false,
    origin: 'https://site.example',
    referer: 'https://site.example/contact',
    contentDropped: false,
    ...overrides,
  };
}

export function createdEvent(
  submission = hostileSubmission(),
): Extract<WebhookEvent, { type: 'submission.created' | 'submission.spam' }> {
  return {
    type: 'submission.created',
    occurredAt: '2026-03-01T12:00:01.000Z',
    form: { id: 'frm_1', name: 'Contact <@everyone> *form*' },
    submission,
  };
}
