import type { Planner, PlannerUsage } from '../runtime/planner.js';
import { DONE_STATUSES } from '../runtime/records.js';
import type { Scenario } from './scenario.js';

export type ModelPrice = NonNullable<Scenario['model']>;

/**
 * What one proposal costs under a price list: the prompt, plus the results of the operations
 * already done (the context a model is sent grows with the run), plus the answer.
 */
export function proposalUsage(model: ModelPrice, stepsDone: number): PlannerUsage {
  const inputTokens = model.baseInputTokens + model.inputTokensPerStep * stepsDone;
  const outputTokens = model.outputTokensPerProposal;
  const costUsd =
    (inputTokens * model.usdPerMillionInputTokens +
      outputTokens * model.usdPerMillionOutputTokens) /
    1_000_000;
  return { inputTokens, outputTokens, costUsd };
}

/**
 * Wraps a planner so that every proposal reports its usage under `model`'s price list. The
 * proposal itself is the inner planner's, untouched; only the bill is added.
 */
export function meteredPlanner(inner: Planner, model: ModelPrice): Planner {
  return {
    get versions() {
      return inner.versions;
    },
    propose: async (context) => {
      const answer = await inner.propose(context);
      const done = context.operations.filter((o) => DONE_STATUSES.has(o.status)).length;
      return { ...answer, usage: proposalUsage(model, done) };
    },
  };
}
