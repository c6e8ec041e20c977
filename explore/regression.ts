import type { FaultPlan } from '../faults/catalog.js';
import type { Predicate } from '../runtime/predicate.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import type { Regression } from '../scenarios/regression.js';
import { runScenario } from '../scenarios/runner.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { ExploreCounterexample } from './explore.js';
import { describePlan } from './describe.js';

const OUTCOME_STATES = new Set(['completed', 'failed', 'blocked', 'cancelled', 'compensated']);

/** The file a counterexample is saved as: `<world>--<scenario>--<plan id>.json`. */
export function regressionFileName(
  found: Pick<ExploreCounterexample, 'scenarioId' | 'plan'>,
): string {
  return `${found.scenarioId.replaceAll('/', '--')}--${found.plan.id}.json`;
}

/**
 * A counterexample as a regression (`faultline-regression`, version 1): the scenario, the seed
 * and the shrunk plan, so `faultline run` replays it in every suite from now on. Where the plan
 * leaves success possible the scenario's own expected outcome stands. Where it does not, the
 * plan carries the outcome the reference runtime reaches under it (state, stop reason, and the
 * scenario's world predicate if it still holds, else this run's effect count), so the file
 * passes for a sound agent and fails for the one that broke the invariant.
 *
 * @example
 * ```ts
 * const found = await explore({ scenario, agent, runs: 200, seed: 7 });
 * if (found.kind === 'counterexample') writeFileSync(regressionFileName(found), JSON.stringify(await regressionFor(scenario, found)));
 * ```
 */
export async function regressionFor(
  scenario: Scenario,
  found: ExploreCounterexample,
  outDir: string,
): Promise<Regression> {
  const note = [
    `found by faultline explore: agent ${found.agent}, seed ${found.seed}, path ${found.path}`,
    ...describePlan(found.plan),
    ...found.violations.map((v) => `violated ${v.invariant}: ${v.message}`),
  ].join('\n');
  let plan: FaultPlan = found.plan;
  if (!found.success.required) {
    const reference = await runScenario(scenario, {
      outDir,
      agent: () => new ReferenceAgent('reference', {}, { store: 'memory' }),
      faultPlan: found.plan,
      seed: found.worldSeed,
    });
    const { state, stopReason } = reference.trajectory.outcome;
    if (OUTCOME_STATES.has(state)) {
      const effects = reference.trajectory.ledger.filter((e) => e.runId === reference.runId).length;
      const world: Predicate = { path: 'effects.length', op: 'eq', value: effects };
      const worldHeld = !reference.mismatches.some((m) => m.startsWith('world:'));
      plan = {
        ...found.plan,
        description: `the outcome the reference runtime reaches under these faults (${found.success.reason})`,
        expected: {
          state: state as NonNullable<FaultPlan['expected']>['state'],
          ...(stopReason === null
            ? {}
            : { stopReason: stopReason as NonNullable<FaultPlan['expected']>['stopReason'] }),
          ...(worldHeld ? {} : { world }),
        },
      };
    }
  }
  return {
    format: 'faultline-regression',
    version: 1,
    scenario: found.scenarioId,
    seed: found.worldSeed,
    faultPlan: plan,
    note,
  };
}
