import { describe, expect, it } from 'vitest';
import { buildWebhookBody, type WebhookEvent } from '../src/channels/webhook/index.ts';
import { createdEvent, HOSTILE, hostileSubmission } from './webhook-fixtures.ts';

const DISCORD_SPECIALS = new Set('\\*_~`|<>#-+[]():@.');

/** Characters of `text` that Discord would read as markdown: specials not preceded by a backslash. */
function unescapedDiscordSpecials(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (DISCORD_SPECIALS.has(text[i] as string)) found.push(text[i] as string);
  }
  return found;
}
const unescapeDiscord = (text: string) => text.replace(/\\(.)/gs, '$1');
const unescapeSlack = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Every `text` string anywhere in a Slack body. */
function slackTexts(body: { text: string; blocks: Array<Record<string, unknown>> }): string[] {
  const texts = [body.text];
  for (const block of body.blocks) {
    if (block.text) texts.push((block.text as { text: string }).text);
    for (const element of (block.elements as Array<{ text: string }> | undefined) ?? []) texts.push(element.text);
  }
  return texts;
}

describe('webhook bodies', () => {
  it('standard: {type, timestamp, data} with the submission as the API returns it, complete, plus form', () => {
    const event = createdEvent();
    const raw = buildWebhookBody('standard', event);
    expect(JSON.parse(raw)).toEqual({
      type: 'submission.created',
      timestamp: '2026-03-01T12:00:01.000Z',
      data: { ...event.submission, form: { id: 'frm_1', name: 'Contact <@everyone> *form*' } },
    });
    expect(raw).not.toMatch(/[<>&]/);
    expect(raw).toContain('\\u003cscript\\u003e');
    expect(JSON.parse(raw).data.fields.find((f: { name: string }) => f.name === 'long').value).toHaveLength(10_000);
  });

  it('standard: spam and deleted events carry their type; a deleted one only ids and dates', () => {
    const spam = JSON.parse(buildWebhookBody('standard', { ...createdEvent(), type: 'submission.spam' }));
    expect(spam.type).toBe('submission.spam');
    const deleted: WebhookEvent = {
      type: 'submission.deleted',
      occurredAt: '2026-03-02T00:00:00.000Z',
      form: { id: 'frm_1', name: 'Contact' },
      submission: { id: 'sub_1', formId: 'frm_1', createdAt: '2026-03-01T12:00:00.000Z' },
    };
    expect(JSON.parse(buildWebhookBody('standard', deleted))).toEqual({
      type: 'submission.deleted',
      timestamp: '2026-03-02T00:00:00.000Z',
      data: {
        id: 'sub_1',
        formId: 'frm_1',
        createdAt: '2026-03-01T12:00:00.000Z',
        form: { id: 'frm_1', name: 'Contact' },
      },
    });
  });

  it('slack: text and blocks where no value can open a link or a mention, long values cut', () => {
    const body = JSON.parse(buildWebhookBody('slack', createdEvent()));
    expect(body.text).toBe('New submission to Contact &lt;@everyone&gt; *form*');
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    const texts = slackTexts(body);
    for (const text of texts) {
      expect(text).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
      expect(text.length).toBeLessThanOrEqual(3000);
    }
    const all = texts.join('\n');
    expect(all).toContain('&lt;!channel&gt; &lt;!here|here&gt; &lt;@U024BE7LH&gt;');
    expect(all).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(all).toContain('&lt;https://evil.example|click me&gt;');
    expect(all).toContain('&lt;img src=x&gt;.pdf');
    const long = texts.find((text) => text.startsWith('*long*')) as string;
    expect(long.length).toBeLessThan(1100);
    expect(long.endsWith('x…')).toBe(true);
    for (const value of Object.values(HOSTILE).filter((v) => v.length < 1000)) {
      expect(texts.map(unescapeSlack).some((text) => text.includes(value))).toBe(true);
    }
  });

  it('slack: many fields are listed up to 25, then counted; a dashboard link only when it is a safe http(s) URL', () => {
    const fields = Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    const event = createdEvent(hostileSubmission({ fields, files: [] }));
    const body = JSON.parse(buildWebhookBody('slack', event, { submissionUrl: 'https://app.example/s/1?a=|b>' }));
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    const texts = slackTexts(body);
    expect(texts.filter((text) => /^\*f\d+\*/.test(text))).toHaveLength(25);
    expect(texts).toContain('…and 35 more fields');
    expect(texts.at(-1)).toContain('<https://app.example/s/1?a=%7Cb%3E|Open in Formgate>');
    const scripted = JSON.parse(buildWebhookBody('slack', event, { submissionUrl: 'javascript:alert(1)' }));
    expect(slackTexts(scripted).join('')).not.toContain('javascript');
  });

  it('discord: markdown escaped, mentions disabled, values shown literally and cut to the field limit', () => {
    const body = JSON.parse(buildWebhookBody('discord', createdEvent()));
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const [embed] = body.embeds;
    const strings: string[] = [body.content, embed.title, embed.footer.text];
    for (const field of embed.fields) strings.push(field.name, field.value);
    for (const text of strings) expect(unescapedDiscordSpecials(text)).toEqual([]);
    expect(body.content).toBe('New submission to Contact \\<\\@everyone\\> \\*form\\*');
    for (const [name, value] of Object.entries(HOSTILE)) {
      const field = embed.fields.find((f: { name: string }) => f.name === name);
      const shown = unescapeDiscord(field.value);
      expect(field.value.length).toBeLessThanOrEqual(1024);
      expect(value.startsWith(shown.replace(/…$/, ''))).toBe(true);
    }
    const long = embed.fields.find((f: { name: string }) => f.name === 'long');
    expect(long.value).toMatch(/^x+…$/);
    expect(embed.fields.find((f: { name: string }) => f.name === 'Files').value).toBe('\\<img src=x\\>\\.pdf');
  });

  it("discord: stays inside the limits (25 fields, 256-char names, 6000 characters per message's embeds)", () => {
    const fields = Array.from({ length: 40 }, (_, i) => ({ name: `${'n'.repeat(400)}${i}`, value: '*'.repeat(3000) }));
    const body = JSON.parse(buildWebhookBody('discord', createdEvent(hostileSubmission({ fields }))));
    const [embed] = body.embeds;
    expect(body.content.length).toBeLessThanOrEqual(2000);
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    let total = embed.title.length + embed.footer.text.length;
    for (const field of embed.fields) {
      expect(field.name.length).toBeLessThanOrEqual(256);
      expect(field.value.length).toBeLessThanOrEqual(1024);
      expect(field.value.length).toBeGreaterThan(0);
      expect(field.value.endsWith('\\')).toBe(false);
      total += field.name.length + field.value.length;
    }
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.fields.at(-1).value).toMatch(/^…and \d+ more not shown$/);
  });

  it('chat kinds describe a deleted submission without its (gone) fields', () => {
    const deleted: WebhookEvent = {
      type: 'submission.deleted',
      occurredAt: '2026-03-02T00:00:00.000Z',
      form: { id: 'frm_1', name: 'Contact' },
      submission: { id: 'sub_1', formId: 'frm_1', createdAt: '2026-03-01T12:00:00.000Z' },
    };
    expect(JSON.parse(buildWebhookBody('slack', deleted)).text).toBe('Submission deleted from Contact');
    const discord = JSON.parse(buildWebhookBody('discord', deleted));
    expect(discord.content).toBe('Submission deleted from Contact');
    expect(discord.embeds[0].fields).toEqual([]);
  });

  it('describes an erased submission by its ids, dates and erasure, in every kind', () => {
    const erased: WebhookEvent = {
      type: 'submission.erased',
      occurredAt: '2026-03-02T00:00:00.000Z',
      form: { id: 'frm_1', name: 'Contact' },
      submission: { id: 'sub_1', formId: 'frm_1', createdAt: '2026-03-01T12:00:00.000Z', erasureId: 'era_1' },
    };
    expect(JSON.parse(buildWebhookBody('standard', erased))).toEqual({
      type: 'submission.erased',
      timestamp: '2026-03-02T00:00:00.000Z',
      data: {
        id: 'sub_1',
        formId: 'frm_1',
        createdAt: '2026-03-01T12:00:00.000Z',
        erasureId: 'era_1',
        form: { id: 'frm_1', name: 'Contact' },
      },
    });
    const slack = JSON.parse(buildWebhookBody('slack', erased));
    expect(slack.text).toBe('Submission erased from Contact');
    expect(slack.blocks).toHaveLength(2);
    const discord = JSON.parse(buildWebhookBody('discord', erased));
    expect(discord.content).toBe('Submission erased from Contact');
    expect(discord.embeds[0].fields).toEqual([]);
  });
});
