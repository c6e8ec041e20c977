import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount } from '../predicates.js';
import { cmdbAuthority, cmdbContract, createCi, linkCi, readCmdb, readScanPage } from './common.js';
import { linkedTo, registered } from './outcomes.js';
import { syncPlanForSeed } from './sync-plan.js';

const SEED = 22;
const { newHosts } = syncPlanForSeed(SEED);
/** Every new host is on the scan's second page. */
const PAGE = 2;
const fourth = newHosts[3]?.discoveryId ?? '';

const onboarded: Predicate = {
  all: [
    ...newHosts.map(registered),
    ...newHosts.map((h, i) => linkedTo(h.serviceId, `ci_${20 + i}`)),
    effectCount(newHosts.length * 2),
  ],
};

/**
 * The everyday CMDB chore after a scale-out: five servers discovery found that the CMDB does not
 * know are registered as CIs and linked to the business services their teams run, through a
 * CMDB API that is slow, flaky and sometimes garbles its replies.
 */
export const onboardHosts = defineScenario({
  id: 'cmdb/onboard-hosts',
  title: 'Register the servers discovery found last night and link them to their services',
  workflowClass: 'inventory-sync',
  tier: 'low',
  world: { name: 'cmdb', seed: SEED },
  input: {},
  contract: cmdbContract({
    objective:
      'Register every server on page 2 of last night’s discovery scan that has no CI yet, and record which business service depends on it.',
    authority: cmdbAuthority({
      create: true,
      link: [...new Set(newHosts.map((h) => h.serviceId))],
    }),
    evidenceRequired: [
      {
        id: 'scan',
        description: 'the scan page the new servers are on',
        operation: `discovered-${PAGE}`,
      },
    ],
    budgets: { toolCalls: 60, retries: 8, externalWrites: 16 },
  }),
  blueprint: {
    id: 'onboard-hosts',
    version: '1',
    operations: [
      readScanPage(PAGE),
      readCmdb,
      ...newHosts.flatMap((h) => [createCi(h), linkCi(h)]),
    ],
  },
  expected: { state: 'completed', world: onboarded },
  faultPlans: [
    {
      id: 'scan-rate-limited',
      description:
        'the discovery API rate-limits the first page request for a minute: wait it out, then read',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'list_discovered', nth: 1 },
          retryAfterMs: 60_000,
        },
      ],
    },
    {
      id: 'create-flaky',
      description:
        'the CMDB fails the second registration with a 503: back off and resend under the same key',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'create_ci', nth: 2 } }],
    },
    {
      id: 'create-reply-garbled',
      description:
        'the first registration is applied but its reply comes back garbled: the outcome is unknown, so resend under the same key (the CMDB replays) rather than register the server again',
      faults: [{ kind: 'malformed-reply', trigger: { on: 'call', tool: 'create_ci', nth: 1 } }],
    },
    {
      id: 'create-reply-late',
      description:
        'the third registration is held up in the network and reaches the CMDB two minutes after the agent gave up on it: only the key keeps the late copy from registering the server twice',
      faults: [
        {
          kind: 'late-reply',
          trigger: { on: 'call', tool: 'create_ci', nth: 3 },
          delayMs: 120_000,
        },
      ],
    },
    {
      id: 'create-delivered-twice',
      description:
        'the network delivers the fourth registration twice and the process dies the instant the first copy is applied: the key makes the second copy a replay, and on restart the open intent is settled under the same key',
      faults: [
        { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'create_ci', nth: 4 } },
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-apply', operation: `create-${fourth}` },
        },
      ],
    },
  ],
  tags: ['happy-path', 'flaky-api'],
});
