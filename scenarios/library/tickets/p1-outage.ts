import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import {
  escalateAuthority,
  escalateOperation,
  noteAuthority,
  noteOperation,
  priorityAuthority,
  priorityOperation,
  readTicket,
  replyAuthority,
  replyOperation,
  ticketReads,
  ticketsContract,
} from './common.js';

const TICKET = 'tkt_9';
const SUMMARY =
  'Checkout API returns 500 on every POST /v2/checkout/sessions for an enterprise customer';
const NOTE =
  'Declared P1 with the duty manager: checkout down for an enterprise customer. Engineering paged through the escalation; status page to be updated by the incident lead.';
const REPLY =
  'We have confirmed the checkout errors and opened a priority-one incident with our engineering team. We will update you every 30 minutes until payments are flowing again.';

/** An outage reported as P2: raised to P1 with the duty manager's approval, engineering paged, customer told. */
export const p1Outage = defineScenario({
  id: 'tickets/p1-outage',
  title:
    'Declare a checkout outage P1 with the duty manager, escalate to engineering and update the customer',
  workflowClass: 'incident-escalation',
  tier: 'high',
  world: { name: 'tickets', seed: 24 },
  input: { ticket_id: TICKET },
  contract: ticketsContract({
    objective: `${TICKET} reports every checkout request failing for an enterprise customer. Raise it to P1 (the duty manager approves), escalate it to engineering, note it for the team and tell the customer.`,
    tools: {
      ...ticketReads([TICKET]),
      ...priorityAuthority([TICKET], 'p1'),
      ...escalateAuthority([TICKET]),
      ...noteAuthority([TICKET]),
      ...replyAuthority([TICKET]),
    },
    evidenceRequired: [
      { id: 'report', description: 'the customer’s outage report', operation: 'ticket' },
    ],
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 10 * 60_000, approver: 'duty-manager' },
  },
  blueprint: {
    id: 'declare-p1',
    version: '1',
    operations: [
      readTicket({ $ref: 'input.ticket_id' }),
      priorityOperation(TICKET, 'P1', 'checkout outage for an enterprise customer'),
      escalateOperation(TICKET, 'engineering', SUMMARY),
      noteOperation(TICKET, NOTE),
      replyOperation(TICKET, REPLY),
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.tickets', { ticket_id: TICKET, priority: 'P1' }),
        hasRecord('world.escalations', { ticket_id: TICKET, target: 'engineering' }),
        hasRecord('world.notes', { ticket_id: TICKET, body: NOTE }),
        hasRecord('world.replies', { ticket_id: TICKET, body: REPLY }),
        effectCount(4),
      ],
    },
  },
  faultPlans: [
    {
      id: 'manager-refuses',
      description:
        'the duty manager refuses the P1 (a platform-wide incident is already open): stop, change nothing',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 1 },
          reason: 'covered by the platform incident already open; keep it P2 and link it there',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'approval-denied',
        world: {
          all: [hasRecord('world.tickets', { ticket_id: TICKET, priority: 'P2' }), effectCount(0)],
        },
      },
    },
    {
      id: 'escalation-timeout',
      description:
        'the escalation request times out with no reply: resend it under the same key, never open a second engineering issue',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'escalate', nth: 1 } }],
    },
    {
      id: 'reply-ack-lost',
      description:
        'the customer update goes out but its acknowledgement is lost (replies have no keys): list the replies before anything else',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'send_reply', nth: 1 } }],
    },
    {
      id: 'model-swapped',
      description:
        'the model behind the planner is swapped after the P1 is approved: notice it, replan, carry on without redoing the priority change',
      faults: [
        { kind: 'model-swap', trigger: { on: 'proposal', nth: 3 }, model: 'fallback-model' },
      ],
    },
  ],
  tags: ['approval', 'happy-path'],
});
