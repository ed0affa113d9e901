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
  /** Runs the before-body layers; throws the blocking layer's `AppError` (403/429) when one blocks. */
  beforeBody(request: SpamRequest): Promise<BeforeBodyResult>;
  /**
   * Runs the after-body layers and composes the verdict: the honeypot's (always acting), then the before-body
   * layers', then the after-body layers' reasons. Throws the blocking layer's `AppError` when one blocks.
   */
  afterBody(submission: SpamSubmission, honeypot: SpamVerdict, before: BeforeBodyResult): Promise<SpamVerdict>;
}

/** A layer that fails unexpectedly flags the submission (reviewable, never lost) instead of failing the request. */
const failed = (layer: SpamLayerName): LayerFinding => ({
  verdict: 'flag',
  reasons: [{ layer, rule: 'layer-error', detail: `the ${layer} layer failed; kept for review` }],
});

/** A layer's finding; a synchronous layer's without a promise (the hot path: most layers are synchronous). */
function runLayer<T>(
  layer: { name: SpamLayerName; check(input: T): LayerFinding | Promise<LayerFinding> },
  input: T,
): LayerFinding | Promise<LayerFinding> {
  const fail = (err: unknown) => {
    if (err instanceof AppError) throw err;
    return failed(layer.name);
  };
  try {
    const finding = layer.check(input);
    return finding instanceof Promise ? finding.catch(fail) : finding;
  } catch (err) {
    return fail(err);
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

  async function run<T extends SpamRequest>(
    layers: readonly { name: SpamLayerName; check(input: T): LayerFinding | Promise<LayerFinding> }[],
    input: T,
    into: BeforeBodyResult,
  ): Promise<void> {
    const shadow = input.settings.shadow;
    for (const layer of layers) {
      const pending = runLayer(layer, input);
      const finding = pending instanceof Promise ? await pending : pending;
      if (finding.verdict === 'pass') continue;
      if (shadow) {
        into.reasons.push(...finding.reasons.map((r) => ({ ...r, shadow: true })));
        continue;
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
  }

  return {
    async beforeBody(request) {
      const result: BeforeBodyResult = { isSpam: false, reasons: [] };
      if (deps.before.length > 0) await run(deps.before, request, result);
      return result;
    },
    async afterBody(submission, honeypot, before) {
      const result: BeforeBodyResult = {
        isSpam: honeypot.isSpam || before.isSpam,
        reasons: [...honeypot.reasons, ...before.reasons],
      };
      if (deps.after.length > 0) await run(deps.after, submission, result);
      return { isSpam: result.isSpam, reasons: result.reasons };
    },
  };
}
