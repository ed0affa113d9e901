import type { Form, SpamLayer as SpamLayerName, SpamReason, SpamVerdict } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { AfterBodyLayer, BeforeBodyLayer, LayerFinding, SpamRequest, SpamSubmission } from './layer.ts';

/** A request a layer blocked (nothing stored): the form and the first reason, for the per-form blocked counter. */
export type OnBlocked = (form: Form, reason: SpamReason) => void;

export interface SpamEvaluatorDeps {
  before: readonly BeforeBodyLayer[];
  after: readonly AfterBodyLayer[];
  /** Told of every block that acted (not of shadow ones); default: nothing. Must not throw. */
  onBlocked?: OnBlocked;
}

/** What the before-body layers found: their flags (and shadow reasons), carried into `afterBody`. */
export interface BeforeBodyResult {
  isSpam: boolean;
  reasons: SpamReason[];
}

export interface SpamEvaluator {
  /**
   * Runs the before-body layers; throws the blocking layer's `AppError` (403/429) when one blocks. Answers without
   * a promise when every layer did (the caller awaits only a promise); a synchronous block throws synchronously.
   */
  beforeBody(request: SpamRequest): BeforeBodyResult | Promise<BeforeBodyResult>;
  /**
   * Runs the after-body layers and composes the verdict: the honeypot's (always acting), then the before-body
   * layers', then the after-body layers' reasons. Throws the blocking layer's `AppError` when one blocks.
   */
  afterBody(
    submission: SpamSubmission,
    honeypot: SpamVerdict,
    before: BeforeBodyResult,
  ): SpamVerdict | Promise<SpamVerdict>;
}

/** A layer that fails unexpectedly flags the submission (reviewable, never lost) instead of failing the request. */
const failed = (layer: SpamLayerName): LayerFinding => ({
  verdict: 'flag',
  reasons: [{ layer, rule: 'layer-error', detail: `the ${layer} layer failed; kept for review` }],
});

const verdictOf = (result: BeforeBodyResult): SpamVerdict => ({ isSpam: result.isSpam, reasons: result.reasons });

/** A layer's failure: an `AppError` (a block) is rethrown, anything else flags (`failed`). */
function failure(layer: SpamLayerName, err: unknown): LayerFinding {
  if (err instanceof AppError) throw err;
  return failed(layer);
}

/**
 * A layer's finding; a synchronous layer's without a promise (the hot path: most layers are synchronous). No
 * closure is made on the synchronous path: `tsx`, which runs `pnpm start` and the bench, names every closure as it
 * is created (`keepNames`), a cost per request the bench's P1s measured.
 */
function runLayer<T>(
  layer: { name: SpamLayerName; check(input: T): LayerFinding | Promise<LayerFinding> },
  input: T,
): LayerFinding | Promise<LayerFinding> {
  try {
    const finding = layer.check(input);
    return finding instanceof Promise ? finding.catch((err: unknown) => failure(layer.name, err)) : finding;
  } catch (err) {
    return failure(layer.name, err);
  }
}

/**
 * The spam orchestrator (issue 14): runs each phase's layers in their order and applies their findings. `pass`
 * adds nothing; `flag` adds its reasons and makes the submission spam; `block` reports the block and throws its
 * error (nothing is stored). In shadow mode (`settings.shadow`) a flag's or a block's reasons are recorded with
 * `shadow: true` and nothing acts. Every layer runs (a flag does not stop the others: every reason is recorded);
 * the first acting block stops the request.
 */
export function createSpamEvaluator(deps: SpamEvaluatorDeps): SpamEvaluator {
  const onBlocked = deps.onBlocked ?? (() => {});

  /** Applies one layer's finding to `into`; throws the error of an acting block. */
  function apply(finding: LayerFinding, input: SpamRequest, into: BeforeBodyResult): void {
    if (finding.verdict === 'pass') return;
    if (input.settings.shadow) {
      into.reasons.push(...finding.reasons.map((r) => ({ ...r, shadow: true })));
      return;
    }
    if (finding.verdict === 'block') {
      const first = finding.reasons[0];
      if (first) {
        try {
          onBlocked(input.form, first);
        } catch {
          // A counter's failure never changes the answer.
        }
      }
      throw finding.error;
    }
    into.isSpam = true;
    into.reasons.push(...finding.reasons);
  }

  /**
   * Runs `layers` from index `from` in order. Synchronous for as long as the layers are (the hot path: no promise
   * per submission); from the first layer that answers with a promise on, the rest run after it settles.
   */
  function run<T extends SpamRequest>(
    layers: readonly { name: SpamLayerName; check(input: T): LayerFinding | Promise<LayerFinding> }[],
    input: T,
    into: BeforeBodyResult,
    from = 0,
  ): undefined | Promise<void> {
    for (let i = from; i < layers.length; i++) {
      const finding = runLayer(layers[i] as (typeof layers)[number], input);
      if (finding instanceof Promise) {
        return finding.then((f) => {
          apply(f, input, into);
          return run(layers, input, into, i + 1);
        });
      }
      apply(finding, input, into);
    }
    return undefined;
  }

  return {
    beforeBody(request) {
      const result: BeforeBodyResult = { isSpam: false, reasons: [] };
      const pending = deps.before.length > 0 ? run(deps.before, request, result) : undefined;
      return pending ? pending.then(() => result) : result;
    },
    afterBody(submission, honeypot, before) {
      const result: BeforeBodyResult = {
        isSpam: honeypot.isSpam || before.isSpam,
        reasons: [...honeypot.reasons, ...before.reasons],
      };
      const pending = deps.after.length > 0 ? run(deps.after, submission, result) : undefined;
      return pending ? pending.then(() => verdictOf(result)) : verdictOf(result);
    },
  };
}
