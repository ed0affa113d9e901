import { SPAM_LAYERS } from '@formgate/contracts';
import type { AfterBodyLayer, BeforeBodyLayer, SpamLayer } from './layer.ts';
import { createOriginLayer } from './origin.ts';
import { createRulesLayer } from './rules.ts';
import { createTimeStamps, createTimeTrapLayer, type TimeStamps } from './time-trap.ts';

export interface SpamLayersDeps {
  /** Signs ingest's own tokens (the time-trap's timestamps; `INGEST_SECRET`), at least 32 characters. */
  secret: string;
  /** During a rotation (ADR 50): the replaced secret, verifying the stamps it signed (never signing). */
  previousSecret?: string | undefined;
  /**
   * Layers built elsewhere (rate limits `spam/rate-limit.ts`, captcha `spam/captcha.ts`): each takes its place by
   * its `name` in the fixed order below, whatever the order given.
   */
  extraLayers?: readonly SpamLayer[];
}

export interface SpamLayers {
  before: BeforeBodyLayer[];
  after: AfterBodyLayer[];
  stamps: TimeStamps;
}

const rank = (layer: SpamLayer) => SPAM_LAYERS.indexOf(layer.name);

/**
 * THE list of spam layers, in the order they run (`SPAM_LAYERS`): honeypot (in `reserved-fields.ts`, always
 * acting), rate limits (before the body), origins (before the body), time-trap, captcha (or ALTCHA), content
 * rules (after the body). A before-body layer runs once the form is known, before the body is read; an after-body
 * layer once the reserved fields are split off. Add a layer by passing it in `extraLayers` (or here).
 */
export function createSpamLayers(deps: SpamLayersDeps): SpamLayers {
  const stamps = createTimeStamps({ current: deps.secret, previous: deps.previousSecret });
  const all: SpamLayer[] = [
    createOriginLayer(),
    createTimeTrapLayer(stamps),
    createRulesLayer(),
    ...(deps.extraLayers ?? []),
  ].sort((a, b) => rank(a) - rank(b));
  return {
    before: all.filter((l): l is BeforeBodyLayer => l.phase === 'before-body'),
    after: all.filter((l): l is AfterBodyLayer => l.phase === 'after-body'),
    stamps,
  };
}
