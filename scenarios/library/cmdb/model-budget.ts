import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount } from '../predicates.js';
import {
  SYNC_AGENT_MODEL,
  SYNC_ID,
  cmdbAuthority,
  cmdbContract,
  reportInChangeLog,
  syncOperations,
} from './common.js';
import { corrected, notReported, registered, uncorrected } from './outcomes.js';
import { syncPlanForSeed } from './sync-plan.js';

const SEED = 27;
const plan = syncPlanForSeed(SEED);
/** Tonight's model spend for the sync: the full run costs about a dollar (see cmdb/nightly-sync). */
const BUDGET_USD = 0.4;
/** Drift corrections confirmed before the spend reaches the budget. */
const DONE = 2;
/** The operation that makes the first drift correction (ids as cmdb/common.ts names them). */
const FIRST_CORRECTION = `update-${(plan.drifted[0]?.ci.ciId ?? '').replace('_', '-')}`;

/** Registered, linked and two of five corrections made; nothing retired, no report. */
const partway: Predicate = {
  all: [
    ...plan.newHosts.map(registered),
    ...plan.drifted.slice(0, DONE).map(corrected),
    ...plan.drifted.slice(DONE).map(uncorrected),
    notReported,
    effectCount(plan.newHosts.length * 2 + DONE),
  ],
};

/**
 * The nightly sync with a cap on model spend. Each step's result is carried into the next
 * prompt, so a long run's later steps cost the most: the cap runs out before the retirements.
 * The right outcome is a safe stop between steps — every write so far confirmed, no report
 * claiming a finished sync — and a bill within the cap.
 */
export const modelBudget = defineScenario({
  id: 'cmdb/model-budget',
  title: 'Run the nightly CMDB sync under a model-spend cap and stop cleanly when it is reached',
  workflowClass: 'inventory-sync',
  tier: 'medium',
  world: { name: 'cmdb', seed: SEED },
  input: { sync_id: SYNC_ID },
  contract: cmdbContract({
    objective: `Bring the CMDB in line with last night’s discovery scan, spending at most $${BUDGET_USD} on the model; stop cleanly when the cap is reached and leave the rest for the next run.`,
    authority: cmdbAuthority({
      create: true,
      update: plan.drifted.map((d) => d.ci.ciId),
      retire: plan.unseen,
      link: [...new Set(plan.newHosts.map((h) => h.serviceId))],
      report: true,
    }),
    budgets: { costUsd: BUDGET_USD },
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 25 * 60_000, approver: 'change-manager' },
  },
  blueprint: {
    id: 'nightly-sync',
    version: '1',
    operations: syncOperations(plan),
    completion: reportInChangeLog,
  },
  model: SYNC_AGENT_MODEL,
  expected: { state: 'failed', stopReason: 'budget-exhausted', world: partway },
  faultPlans: [
    {
      id: 'crash-midway',
      description:
        'the process dies after the first correction is saved: on restart the spend so far still counts, so the run stops at the same place',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: FIRST_CORRECTION },
        },
      ],
    },
  ],
  tags: ['long-run', 'budget', 'model-cost', 'safe-stop'],
});
