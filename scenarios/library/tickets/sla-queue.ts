import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import {
  agentAvailable,
  assignAuthority,
  assignOperation,
  readRoster,
  ticketsContract,
} from './common.js';

const QUEUE = { group_id: 'billing', view: 'unassigned' };
const BILLING_QUEUE = ['tkt_1', 'tkt_2', 'tkt_3', 'tkt_4', 'tkt_5'];
/** Two billing agents with room, taking the queue in turns. */
const TAKERS = ['agt_2', 'agt_1', 'agt_2', 'agt_1'] as const;

/** The k-th effect of the run is the assignment of `ticket` to `agent`: the order is the point. */
function nthAssignment(k: number, ticket: string, agent: string): Predicate {
  return { path: `effects.${k}.identity`, op: 'eq', value: `assignment:${ticket}->${agent}` };
}

function unassigned(ticket: string): Predicate {
  return hasRecord('world.tickets', { ticket_id: ticket, assignee_id: null });
}

/**
 * Assign the ticket at position `k` of the queue as read. The precondition reads the queue
 * afresh: the ticket must still be the most urgent unassigned one, so a ticket that became more
 * urgent meanwhile is taken first, and the ones already routed have left the view.
 */
function takeNext(k: number): ReturnType<typeof assignOperation> {
  return assignOperation({
    id: `assign-${k + 1}`,
    description: `Assign the ticket ${k + 1}${['st', 'nd', 'rd', 'th'][k] ?? 'th'} closest to SLA breach`,
    ticket: { $ref: `queue.tickets.${k}.ticket_id` },
    assignee: TAKERS[k] ?? 'agt_1',
    preconditions: [
      {
        description: 'the ticket is still the most urgent unassigned one in the queue',
        read: { tool: 'list_queue', args: QUEUE },
        expect: { path: 'fresh.tickets.0.ticket_id', op: 'eq', value: { $ref: 'args.ticket_id' } },
      },
      agentAvailable('billing'),
    ],
  });
}

/**
 * Working a queue by SLA: the four billing tickets closest to breach, most urgent first — which
 * is not priority order (a P3 filed eight hours ago breaches before a fresh P1). The routing API
 * accepts three assignments a minute, so the fourth waits out the world's own retry-after.
 */
export const slaQueue = defineScenario({
  id: 'tickets/sla-queue',
  title:
    'Work the billing queue by SLA: route the four tickets closest to breach, most urgent first',
  workflowClass: 'queue-routing',
  tier: 'high',
  world: { name: 'tickets', seed: 22 },
  input: { group_id: 'billing' },
  contract: ticketsContract({
    objective:
      'Assign the four unassigned billing tickets closest to SLA breach to agt_2 and agt_1 in turn, most urgent first, so none breaches unowned.',
    tools: {
      list_queue: { risk: 'read', resources: { group_id: ['billing'] } },
      list_teams: { risk: 'read', resources: { group_id: ['billing'] } },
      get_ticket: { risk: 'read', resources: { ticket_id: BILLING_QUEUE } },
      ...assignAuthority(BILLING_QUEUE, ['agt_1', 'agt_2']),
    },
    budgets: { toolCalls: 60, retries: 12, externalWrites: 16 },
  }),
  blueprint: {
    id: 'work-queue-by-sla',
    version: '1',
    operations: [
      {
        id: 'queue',
        description: 'Read the unassigned billing queue, most urgent first',
        tool: 'list_queue',
        kind: 'read',
        args: QUEUE,
      },
      readRoster('billing'),
      takeNext(0),
      takeNext(1),
      takeNext(2),
      takeNext(3),
    ],
    completion: [
      {
        description: 'one unassigned billing ticket is left',
        read: { tool: 'list_queue', args: QUEUE },
        expect: { path: 'fresh.count', op: 'eq', value: 1 },
      },
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        nthAssignment(0, 'tkt_2', 'agt_2'),
        nthAssignment(1, 'tkt_3', 'agt_1'),
        nthAssignment(2, 'tkt_1', 'agt_2'),
        nthAssignment(3, 'tkt_5', 'agt_1'),
        unassigned('tkt_4'),
        effectCount(4),
      ],
    },
  },
  faultPlans: [
    {
      id: 'raised-elsewhere',
      description:
        'a colleague raises tkt_4 to P1 between the queue read and the first assignment, so it is already past its SLA: read the queue again and take it first',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 3 },
          change: 'priority-changed-elsewhere',
          params: { ticket_id: 'tkt_4', priority: 'P1' },
        },
      ],
      expected: {
        state: 'completed',
        world: {
          all: [
            nthAssignment(0, 'tkt_4', 'agt_2'),
            nthAssignment(1, 'tkt_2', 'agt_1'),
            nthAssignment(2, 'tkt_3', 'agt_2'),
            nthAssignment(3, 'tkt_1', 'agt_1'),
            unassigned('tkt_5'),
            effectCount(4),
          ],
        },
      },
    },
    {
      id: 'routing-blip',
      description:
        'the helpdesk is unavailable for a minute from the first assignment: back off and carry on, in the same order',
      faults: [
        {
          kind: 'unavailable',
          trigger: { on: 'call', tool: 'assign_ticket', nth: 1 },
          windowMs: 60_000,
        },
      ],
    },
    {
      id: 'routing-outage',
      description:
        'the helpdesk is down for two hours from the first assignment: stop when the retry budget is spent, with nothing half-routed',
      faults: [
        {
          kind: 'unavailable',
          trigger: { on: 'call', tool: 'assign_ticket', nth: 1 },
          windowMs: 2 * 3_600_000,
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'budget-exhausted',
        world: { all: BILLING_QUEUE.map(unassigned).concat(effectCount(0)) },
      },
    },
    {
      id: 'shift-lead-cancels',
      description:
        'the shift lead cancels the run after the second assignment (she is taking the queue herself): stop, route nothing more',
      faults: [
        {
          kind: 'cancellation',
          trigger: { on: 'call', tool: 'assign_ticket', nth: 2 },
          reason: 'shift lead is taking over the billing queue',
        },
      ],
      expected: {
        state: 'cancelled',
        stopReason: 'cancelled',
        world: {
          all: [
            nthAssignment(0, 'tkt_2', 'agt_2'),
            nthAssignment(1, 'tkt_3', 'agt_1'),
            unassigned('tkt_1'),
            effectCount(2),
          ],
        },
      },
    },
  ],
  tags: ['sla', 'rate-limit'],
});
