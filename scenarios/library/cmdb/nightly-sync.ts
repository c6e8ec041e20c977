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
import { GONE_CIS, ciStatus, corrected, notReported, registered, synced } from './outcomes.js';
import { syncPlanForSeed } from './sync-plan.js';

const SEED = 21;
const plan = syncPlanForSeed(SEED);

/**
 * The long run: last night's discovery scan reconciled into the CMDB of record, about 67 tool
 * calls — both inventories read, five new servers registered and linked to their services,
 * five drifted CIs corrected under version checks, four unseen CIs looked up and the three
 * gone for a month retired (the production one with a change approval), and the sync report
 * posted. Its operations are generated from the diff of the seeded scan and CMDB.
 */
export const nightlySync = defineScenario({
  id: 'cmdb/nightly-sync',
  title: 'Reconcile last night’s discovery scan into the CMDB: register, correct, retire, report',
  workflowClass: 'inventory-sync',
  tier: 'high',
  world: { name: 'cmdb', seed: SEED },
  input: { sync_id: SYNC_ID },
  contract: cmdbContract({
    objective:
      'Bring the CMDB in line with last night’s discovery scan: register and link servers it does not know, correct IP, OS and owner team where they drifted, retire servers discovery has not reached for 30 days (production ones only with a change approval), and post the sync report.',
    authority: cmdbAuthority({
      create: true,
      update: plan.drifted.map((d) => d.ci.ciId),
      retire: plan.unseen,
      link: [...new Set(plan.newHosts.map((h) => h.serviceId))],
      report: true,
    }),
    evidenceRequired: [
      { id: 'scan', description: 'the discovery scan the sync acts on', operation: 'discovered-1' },
      { id: 'cmdb', description: 'the CMDB as it stood before the sync', operation: 'cmdb' },
    ],
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
  expected: { state: 'completed', world: synced(plan) },
  faultPlans: [
    {
      id: 'crash-early',
      description:
        'the process dies right after recording its intent to register the first new server, before sending it: on restart, settle that open intent (resend under its key) before anything else',
      faults: [
        {
          kind: 'crash',
          trigger: {
            on: 'probe',
            probe: 'after-intent',
            operation: `create-${plan.newHosts[0]?.discoveryId ?? ''}`,
          },
        },
      ],
    },
    {
      id: 'crash-midway',
      description:
        'the process dies halfway, right after a drift correction was saved: resume from the checkpoint and redo none of the thirteen writes already confirmed',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: 'update-ci-8' },
        },
      ],
    },
    {
      id: 'crash-late',
      description:
        'the process dies the instant the sync report is posted, before the reply: reports have no keys, so ask the change log before posting again',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'report' } },
      ],
    },
    {
      id: 'token-expires',
      description:
        'two-thirds in, the sync’s credential expires as it turns to the retirements: stop and escalate with the work so far intact, never retry on a dead credential',
      faults: [
        { kind: 'expired-credential', trigger: { on: 'call', tool: 'lookup_host', nth: 1 } },
      ],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: {
          all: [
            ...plan.newHosts.map(registered),
            ...plan.drifted.map(corrected),
            ...GONE_CIS.map((id) => ciStatus(id, 'operational')),
            notReported,
            effectCount(plan.newHosts.length * 2 + plan.drifted.length),
          ],
        },
      },
    },
    {
      id: 'planner-turbulence',
      description:
        'over the long run the model garbles one proposal, its context is compacted, and the model is swapped: regenerate, continue from the records, replan — and still change nothing twice',
      faults: [
        { kind: 'invalid-output', trigger: { on: 'proposal', nth: 4 } },
        { kind: 'context-compaction', trigger: { on: 'proposal', nth: 15 } },
        { kind: 'model-swap', trigger: { on: 'proposal', nth: 28 }, model: 'fallback-model' },
      ],
    },
  ],
  tags: ['long-run', 'versioned-write', 'approval'],
});
