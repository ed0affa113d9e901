import type { Form, SpamReason } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { createCaptchaLayer, DEFAULT_CAPTCHA_VERIFY } from '../src/spam/captcha.ts';
import { createSpamEvaluator } from '../src/spam/evaluate.ts';
import { createSpamLayers } from '../src/spam/index.ts';
import type { AfterBodyLayer, BeforeBodyLayer, LayerFinding } from '../src/spam/layer.ts';
import { createRateLimitLayer, ipKeyer } from '../src/spam/rate-limit.ts';
import { SECRET, spamRequest, spamSubmission } from './spam-fixtures.ts';

const reason = (layer: SpamReason['layer'], rule: string): SpamReason => ({ layer, rule, detail: `${layer} ${rule}` });
const before = (name: BeforeBodyLayer['name'], finding: LayerFinding, calls: string[] = []): BeforeBodyLayer => ({
  name,
  phase: 'before-body',
  check: () => {
    calls.push(name);
    return finding;
  },
});
const after = (
  name: AfterBodyLayer['name'],
  finding: LayerFinding | (() => never),
  calls: string[] = [],
): AfterBodyLayer => ({
  name,
  phase: 'after-body',
  check: async () => {
    calls.push(name);
    return typeof finding === 'function' ? finding() : finding;
  },
});
const pass: LayerFinding = { verdict: 'pass' };
const flag = (layer: SpamReason['layer'], rule: string): LayerFinding => ({
  verdict: 'flag',
  reasons: [reason(layer, rule)],
});
const block = (
  layer: SpamReason['layer'],
  rule: string,
  code: 'BLOCKED' | 'RATE_LIMITED' = 'BLOCKED',
): LayerFinding => ({
  verdict: 'block',
  reasons: [reason(layer, rule)],
  error: new AppError(code),
});
const clean = { isSpam: false, reasons: [] };
const honeypot = { isSpam: true, reasons: [reason('honeypot', 'field-filled')] };

describe('spam evaluator', () => {
  it('passes: not spam, no reasons', async () => {
    const e = createSpamEvaluator({ before: [before('origin', pass)], after: [after('rules', pass)] });
    const b = await e.beforeBody(spamRequest());
    expect(await e.afterBody(spamSubmission(), clean, b)).toEqual(clean);
  });

  it('answers without a promise while every layer is synchronous, and keeps layer order across an async one', async () => {
    const sync = (name: AfterBodyLayer['name'], finding: LayerFinding, calls: string[]): AfterBodyLayer => ({
      name,
      phase: 'after-body',
      check: () => {
        calls.push(name);
        return finding;
      },
    });
    const calls: string[] = [];
    const allSync = createSpamEvaluator({
      before: [before('origin', pass, calls)],
      after: [sync('time-trap', flag('time-trap', 'too-fast'), calls)],
    });
    const b = allSync.beforeBody(spamRequest());
    expect(b).not.toBeInstanceOf(Promise);
    const v = allSync.afterBody(spamSubmission(), clean, b as Awaited<typeof b>);
    expect(v).toEqual({ isSpam: true, reasons: [reason('time-trap', 'too-fast')] });

    const order: string[] = [];
    const mixed = createSpamEvaluator({
      before: [],
      after: [
        sync('time-trap', flag('time-trap', 'too-fast'), order),
        after('captcha', flag('captcha', 'failed'), order),
        sync('rules', flag('rules', 'blocked-word'), order),
      ],
    });
    const pending = mixed.afterBody(spamSubmission(), clean, { isSpam: false, reasons: [] });
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).reasons.map((r) => r.layer)).toEqual(['time-trap', 'captcha', 'rules']);
    expect(order).toEqual(['time-trap', 'captcha', 'rules']);
  });

  it('with every layer ingest builds and no captcha on the form, both phases answer without a promise', () => {
    const layers = createSpamLayers({
      secret: SECRET,
      extraLayers: [
        createCaptchaLayer({ verify: DEFAULT_CAPTCHA_VERIFY }),
        createRateLimitLayer({ ipKey: ipKeyer(SECRET) }),
      ],
    });
    expect([...layers.before, ...layers.after].map((l) => l.name).sort()).toEqual(
      ['captcha', 'origin', 'rate-limit', 'rules', 'time-trap'].sort(),
    );
    const e = createSpamEvaluator(layers);
    const b = e.beforeBody(spamRequest());
    expect(b).not.toBeInstanceOf(Promise);
    const v = e.afterBody(spamSubmission(), clean, b as Awaited<typeof b>);
    expect(v).not.toBeInstanceOf(Promise);
  });

  it('combines flags of both phases after the honeypot, in layer order, and runs every layer', async () => {
    const calls: string[] = [];
    const e = createSpamEvaluator({
      before: [before('origin', flag('origin', 'origin-missing'), calls)],
      after: [
        after('time-trap', flag('time-trap', 'too-fast'), calls),
        after('rules', flag('rules', 'blocked-word'), calls),
      ],
    });
    const b = await e.beforeBody(spamRequest());
    const verdict = await e.afterBody(spamSubmission(), honeypot, b);
    expect(calls).toEqual(['origin', 'time-trap', 'rules']);
    expect(verdict).toEqual({
      isSpam: true,
      reasons: [
        reason('honeypot', 'field-filled'),
        reason('origin', 'origin-missing'),
        reason('time-trap', 'too-fast'),
        reason('rules', 'blocked-word'),
      ],
    });
  });

  it('a before-body flag alone makes spam', async () => {
    const e = createSpamEvaluator({ before: [before('origin', flag('origin', 'origin-not-allowed'))], after: [] });
    const verdict = await e.afterBody(spamSubmission(), clean, await e.beforeBody(spamRequest()));
    expect(verdict.isSpam).toBe(true);
  });

  it('a block throws its error, reports it to onBlocked and stops the later layers', async () => {
    const calls: string[] = [];
    const blocked: [Form, SpamReason][] = [];
    const e = createSpamEvaluator({
      before: [
        before('rate-limit', block('rate-limit', 'per-ip', 'RATE_LIMITED'), calls),
        before('origin', pass, calls),
      ],
      after: [],
      onBlocked: (form, r) => blocked.push([form, r]),
    });
    const req = spamRequest();
    await expect(async () => e.beforeBody(req)).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(calls).toEqual(['rate-limit']);
    expect(blocked).toEqual([[req.form, reason('rate-limit', 'per-ip')]]);
  });

  it('an after-body block wins over flags found before it (nothing is stored)', async () => {
    const e = createSpamEvaluator({
      before: [before('origin', flag('origin', 'origin-missing'))],
      after: [after('captcha', block('captcha', 'failed')), after('rules', flag('rules', 'blocked-word'))],
    });
    const b = await e.beforeBody(spamRequest());
    await expect(async () => e.afterBody(spamSubmission(), clean, b)).rejects.toMatchObject({
      code: 'BLOCKED',
      status: 403,
    });
  });

  it('shadow mode records flags and blocks with shadow: true and does not act; the honeypot still acts', async () => {
    const blocked: SpamReason[] = [];
    const e = createSpamEvaluator({
      before: [before('origin', block('origin', 'origin-not-allowed'))],
      after: [after('rules', flag('rules', 'blocked-word'))],
      onBlocked: (_f, r) => blocked.push(r),
    });
    const settings = { shadow: true };
    const b = await e.beforeBody(spamRequest({ settings }));
    const shadowed = await e.afterBody(spamSubmission({ settings }), clean, b);
    expect(shadowed).toEqual({
      isSpam: false,
      reasons: [
        { ...reason('origin', 'origin-not-allowed'), shadow: true },
        { ...reason('rules', 'blocked-word'), shadow: true },
      ],
    });
    expect(blocked).toEqual([]);
    const withHoneypot = await e.afterBody(spamSubmission({ settings }), honeypot, b);
    expect(withHoneypot.isSpam).toBe(true);
    expect(withHoneypot.reasons[0]).toEqual(reason('honeypot', 'field-filled'));
  });

  it('a layer that fails unexpectedly flags for review instead of failing the request', async () => {
    const e = createSpamEvaluator({
      before: [],
      after: [
        after('captcha', () => {
          throw new Error('boom');
        }),
      ],
    });
    const verdict = await e.afterBody(spamSubmission(), clean, await e.beforeBody(spamRequest()));
    expect(verdict).toMatchObject({ isSpam: true, reasons: [{ layer: 'captcha', rule: 'layer-error' }] });
  });

  it('a failing onBlocked hook does not change the answer', async () => {
    const e = createSpamEvaluator({
      before: [before('origin', block('origin', 'origin-not-allowed'))],
      after: [],
      onBlocked: () => {
        throw new Error('counter down');
      },
    });
    await expect(async () => e.beforeBody(spamRequest())).rejects.toMatchObject({ code: 'BLOCKED' });
  });
});

describe('createSpamLayers', () => {
  it('orders the layers honeypot, rate limits, origins, time-trap, captcha, content rules whatever the extras’ order', () => {
    const layers = createSpamLayers({
      secret: SECRET,
      extraLayers: [after('captcha', pass), before('rate-limit', pass)],
    });
    expect(layers.before.map((l) => l.name)).toEqual(['rate-limit', 'origin']);
    expect(layers.after.map((l) => l.name)).toEqual(['time-trap', 'captcha', 'rules']);
  });
});
