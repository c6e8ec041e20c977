import { defineScenario } from '../../scenario.js';
import { addNote, crmContract, findDuplicates, mergeDuplicate, readAccount } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

const SURVIVOR = 'acc_7';
const DUPLICATE = 'acc_8';

/** Success is forbidden: the account owner objects to the merge, so nothing may change. */
export const mergeDenied = defineScenario({
  id: 'crm/merge-denied',
  title: 'Stop safely when the approver refuses a duplicate merge',
  workflowClass: 'account-merge',
  tier: 'high',
  world: { name: 'crm', seed: 11 },
  input: { account_id: SURVIVOR, duplicate_id: DUPLICATE },
  contract: crmContract({
    accounts: [SURVIVOR, DUPLICATE],
    merge: { survivor: SURVIVOR, duplicate: DUPLICATE },
    objective: `Merge the duplicate account ${DUPLICATE} into ${SURVIVOR} if a person approves, and note it on ${SURVIVOR}.`,
  }),
  operator: {
    approvals: {
      decision: 'deny',
      afterMs: 3_600_000,
      approver: 'account-owner',
      reason: 'separate subsidiaries billed apart: keep both accounts',
    },
  },
  blueprint: {
    id: 'merge-duplicates',
    version: '1',
    operations: [
      readAccount,
      findDuplicates,
      mergeDuplicate,
      addNote(`Merged duplicate account ${DUPLICATE} into this one.`, SURVIVOR),
    ],
  },
  expected: {
    state: 'failed',
    stopReason: 'approval-denied',
    world: {
      all: [
        hasRecord('world.accounts', { account_id: DUPLICATE, status: 'active', merged_into: null }),
        effectCount(0),
      ],
    },
  },
  faultPlans: [
    {
      id: 'duplicates-read-flaky',
      description:
        'the duplicate search fails once: back off and search again, then ask and take the no',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'find_duplicates', nth: 1 } }],
    },
  ],
  tags: ['approval', 'safe-stop'],
});
