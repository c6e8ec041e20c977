import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import {
  agentAvailable,
  assignAuthority,
  assignOperation,
  noteAuthority,
  noteOperation,
  readRoster,
  readTicket,
  ticketReads,
  ticketsContract,
} from './common.js';

const TICKET = 'tkt_14';
const ASSIGNEE = 'agt_7';
const NOTE =
  'Enterprise SSO outage: routed to the SSO specialist. Ask the customer for a SAML trace if the IdP clock skew check comes back clean.';

/** Routing one enterprise ticket to the one specialist who can take it, after checking the roster. */
export const assignVip = defineScenario({
  id: 'tickets/assign-vip',
  title: 'Route an enterprise SSO outage to the SSO specialist, if the roster shows room',
  workflowClass: 'ticket-routing',
  tier: 'low',
  world: { name: 'tickets', seed: 27 },
  input: { ticket_id: TICKET, assignee_id: ASSIGNEE },
  contract: ticketsContract({
    objective: `Assign the enterprise SSO ticket ${TICKET} to ${ASSIGNEE} if the roster shows them online with room, and leave a routing note.`,
    tools: {
      ...ticketReads([TICKET]),
      list_teams: { risk: 'read', resources: { group_id: ['accounts'] } },
      ...assignAuthority([TICKET], [ASSIGNEE]),
      ...noteAuthority([TICKET]),
    },
    evidenceRequired: [
      { id: 'roster', description: 'the accounts group roster', operation: 'roster' },
    ],
  }),
  blueprint: {
    id: 'route-one',
    version: '1',
    operations: [
      readTicket({ $ref: 'input.ticket_id' }),
      readRoster('accounts'),
      assignOperation({
        id: 'assign',
        ticket: { $ref: 'input.ticket_id' },
        assignee: { $ref: 'input.assignee_id' },
        preconditions: [agentAvailable('accounts')],
      }),
      noteOperation(TICKET, NOTE),
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.tickets', { ticket_id: TICKET, assignee_id: ASSIGNEE, status: 'open' }),
        hasRecord('world.notes', { ticket_id: TICKET, body: NOTE }),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'assign-rate-limited',
      description:
        'the routing API answers the assignment with a rate limit and a 45 s retry-after: wait it out, then assign once',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'assign_ticket', nth: 1 },
          retryAfterMs: 45_000,
        },
      ],
    },
    {
      id: 'roster-missing',
      description:
        'the roster comes back with no agents on every read: the assignee’s availability cannot be verified, so do not route blind — stop',
      faults: [
        {
          kind: 'missing-evidence',
          trigger: { on: 'probability', p: 1, tool: 'list_teams' },
          tool: 'list_teams',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'precondition-unsatisfiable',
        world: {
          all: [
            hasRecord('world.tickets', { ticket_id: TICKET, assignee_id: null }),
            effectCount(0),
          ],
        },
      },
    },
    {
      id: 'crash-after-assign',
      description:
        'the process dies the instant the routing API applied the assignment, before the reply: resume, settle it, do not route twice',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'assign' } },
      ],
    },
  ],
  tags: ['routing'],
});
