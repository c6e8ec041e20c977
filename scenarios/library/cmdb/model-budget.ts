import { defineScenario } from '../../scenario.js';
import {
  SYNC_AGENT_MODEL,
  SYNC_ID,
  cmdbAuthority,
  cmdbContract,
  reportInChangeLog,
  syncOperations,
} from './common.js';
import { stoppedPartway, synced } from './outcomes.js';
import { syncPlanForSeed } from './sync-plan.js';

const SEED = 27;
const plan = syncPlanForSeed(SEED);
/** Tonight's model spend for the sync: the full run costs about a dollar (see cmdb/nightly-sync). */
const BUDGET_USD = 0.4;
/** The operation that makes the first drift correction (ids as cmdb/common.ts names them). */
const FIRST_CORRECTION = `update-${(plan.drifted[0]?.ci.ciId ?? '').replace('_', '-')}`;

/**
 * The nightly sync with a cap on model spend. Each step's result is carried into the next
 * prompt, so a long run's later steps cost the most: the reference's cap runs out after two
 * drift corrections, before the retirements. Judged by rules about the world and the budget: a
 * run that did the whole sync within the cap (an agent that asks no metered model spends
 * nothing) completed; any other must stop cleanly between steps — the changes so far the
 * sync's first, each whole, no report claiming a finished sync — with a bill within the cap.
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
  expected: {
    state: 'failed',
    stopReason: 'budget-exhausted',
    world: stoppedPartway(plan),
    finished: synced(plan),
  },
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
