import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import { cmdbAuthority, cmdbContract, readCi, readScanPage, updateCi } from './common.js';
import { corrected, uncorrected } from './outcomes.js';
import { syncPlanForSeed } from './sync-plan.js';

const SEED = 23;
/** After a patch weekend: the CIs whose IP or OS changed (not the ownership change). */
const drifted = syncPlanForSeed(SEED).drifted.filter((d) =>
  ['ci_3', 'ci_5', 'ci_11'].includes(d.ci.ciId),
);
const [first] = drifted;
const COLLEAGUE_GROUP = 'Payments SRE';
/** What a discovery agent answers when the machine it reports on is not the one asked about. */
const CONTRADICTING_SIGHTING = {
  source: 'aws-ec2',
  hostname: 'ip-10-99-0-17',
  ip: '10.99.0.17',
  os: 'Amazon Linux 2',
  seen_at: '2025-03-03T01:41:00.000Z',
  days_ago: 0,
};

const allCorrected: Predicate = { all: [...drifted.map(corrected), effectCount(drifted.length)] };

/**
 * Drift correction under concurrency: discovery says three servers changed IP or OS over a
 * patch weekend. Each correction names the version it read and must be corroborated by the
 * machine's own sighting today — a colleague may edit the CI under the run, and discovery's
 * two views of a host may disagree.
 */
export const driftUpdate = defineScenario({
  id: 'cmdb/drift-update',
  title: 'Correct the IPs and OS versions that drifted over a patch weekend, under version checks',
  workflowClass: 'inventory-sync',
  tier: 'medium',
  world: { name: 'cmdb', seed: SEED },
  input: {},
  contract: cmdbContract({
    objective:
      'Correct the IP and OS of ci_3, ci_5 and ci_11 where last night’s discovery scan shows they changed — only where the machine’s own sighting today agrees, and never over a colleague’s newer edit.',
    authority: cmdbAuthority({ update: drifted.map((d) => d.ci.ciId) }),
    evidenceRequired: [
      {
        id: 'scan',
        description: 'the scan page with the drifted hosts',
        operation: 'discovered-1',
      },
    ],
    budgets: { toolCalls: 60, retries: 6, externalWrites: 8, virtualTimeMs: 2 * 3_600_000 },
  }),
  blueprint: {
    id: 'drift-update',
    version: '1',
    operations: [
      readScanPage(1),
      readScanPage(2),
      ...drifted.flatMap((d) => [readCi(d.ci.ciId), updateCi(d, { corroborate: true })]),
    ],
  },
  expected: { state: 'completed', world: allCorrected },
  faultPlans: [
    {
      id: 'edited-elsewhere',
      description: `a colleague reassigns ${first?.ci.ciId ?? ''} to another support group between the run's read and its write: the version check fails, so read again and write on the new version, keeping the colleague's edit`,
      faults: [
        {
          kind: 'stale-record',
          // Step 5 is the fresh version read just before the first write.
          trigger: { on: 'step', step: 5 },
          change: 'ci-edited-elsewhere',
          params: { ci_id: first?.ci.ciId ?? '', field: 'support_group', value: COLLEAGUE_GROUP },
        },
      ],
      expected: {
        state: 'completed',
        world: {
          all: [
            allCorrected,
            hasRecord('world.cis', { ci_id: first?.ci.ciId ?? '', support_group: COLLEAGUE_GROUP }),
          ],
        },
      },
    },
    {
      id: 'scan-contradicts',
      description:
        'the machine’s own sighting keeps contradicting the scan (another host answers on its serial): refresh a few times, then stop with nothing written rather than pick a side',
      faults: [
        {
          kind: 'conflicting-evidence',
          trigger: { on: 'probability', p: 1, tool: 'lookup_host' },
          tool: 'lookup_host',
          replace: { sightings: [CONTRADICTING_SIGHTING] },
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'precondition-unsatisfiable',
        world: { all: [...drifted.map(uncorrected), effectCount(0)] },
      },
    },
    {
      id: 'token-expires',
      description:
        'the run’s credential expires just before the second correction: stop and escalate, one correction made, no retries on a dead credential',
      faults: [{ kind: 'expired-credential', trigger: { on: 'call', tool: 'update_ci', nth: 2 } }],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: {
          all: [
            ...drifted.slice(0, 1).map(corrected),
            ...drifted.slice(1).map(uncorrected),
            effectCount(1),
          ],
        },
      },
    },
    {
      id: 'change-freeze',
      description:
        'a change freeze starts after the first correction and the CMDB revokes the integration’s write access: stop and escalate, do not retry',
      faults: [
        {
          kind: 'revoked-permission',
          trigger: { on: 'call', tool: 'update_ci', nth: 2 },
          tool: 'update_ci',
        },
      ],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: {
          all: [
            ...drifted.slice(0, 1).map(corrected),
            ...drifted.slice(1).map(uncorrected),
            effectCount(1),
          ],
        },
      },
    },
    {
      id: 'update-times-out',
      description:
        'the first correction never reaches the CMDB and no reply comes: the outcome is unknown, so resend under the same key',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'update_ci', nth: 1 } }],
    },
  ],
  tags: ['versioned-write', 'evidence'],
});
