import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import {
  noteAuthority,
  noteOperation,
  priorityAuthority,
  priorityOperation,
  readTicket,
  ticketReads,
  ticketsContract,
} from './common.js';

const IOS = 'tkt_12';
const SAML = 'tkt_14';
const TICKETS = [IOS, SAML];
const IOS_NOTE =
  'Raised to P1 with the duty manager: the iOS app crashes on launch for every user on 4.9.2. Mobile on-call to confirm a rollback.';
const SAML_NOTE =
  'Raised to P1 with the duty manager: SAML login fails for all users of the account (InResponseTo mismatch). Identity on-call to check the IdP certificate rotation.';

/**
 * Two lock-outs reported as P2 in one morning, each raised to P1 on its own approval from the
 * duty manager — two approvals in one run, each for one ticket and one priority — and noted
 * for the team once raised.
 */
export const twoLockoutsP1 = defineScenario({
  id: 'tickets/two-lockouts-p1',
  title:
    'Raise two lock-out incidents to P1, each on its own approval from the duty manager, and note each',
  workflowClass: 'incident-escalation',
  tier: 'high',
  world: { name: 'tickets', seed: 57 },
  input: { ticket_ids: TICKETS },
  contract: ticketsContract({
    objective: `${IOS} (the iOS app crashes on launch for every user) and ${SAML} (SAML login fails for all users) each lock customers out entirely. Raise each to P1 — the duty manager approves each change — and leave the team a note on each.`,
    tools: {
      ...ticketReads(TICKETS),
      ...priorityAuthority(TICKETS, 'p1'),
      ...noteAuthority(TICKETS),
    },
    evidenceRequired: [
      { id: 'ios-report', description: 'the iOS crash report', operation: 'ios' },
      { id: 'saml-report', description: 'the SAML login report', operation: 'saml' },
    ],
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 15 * 60_000, approver: 'duty-manager' },
  },
  blueprint: {
    id: 'declare-two-p1s',
    version: '1',
    // Both raised, then both noted: the two P1 approvals are the run's first two in any
    // autonomy mode (supervised adds the notes after them).
    operations: [
      readTicket(IOS, 'ios'),
      readTicket(SAML, 'saml'),
      { ...priorityOperation(IOS, 'P1', 'every iOS user crashes on launch'), id: 'ios-p1' },
      { ...priorityOperation(SAML, 'P1', 'no user of the account can sign in'), id: 'saml-p1' },
      noteOperation(IOS, IOS_NOTE, 'ios-note'),
      noteOperation(SAML, SAML_NOTE, 'saml-note'),
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.tickets', { ticket_id: IOS, priority: 'P1' }),
        hasRecord('world.tickets', { ticket_id: SAML, priority: 'P1' }),
        hasRecord('world.notes', { ticket_id: IOS, body: IOS_NOTE }),
        hasRecord('world.notes', { ticket_id: SAML, body: SAML_NOTE }),
        effectCount(4),
      ],
    },
  },
  faultPlans: [
    {
      id: 'second-refused',
      description:
        'the duty manager approves the iOS P1 but refuses the SAML one (it is one customer’s IdP, not ours): stop there, the iOS ticket raised, the SAML ticket untouched, no notes',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 2 },
          reason: 'a single customer’s IdP misconfiguration: keep it P2 and work it with them',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'approval-denied',
        world: {
          all: [
            hasRecord('world.tickets', { ticket_id: IOS, priority: 'P1' }),
            hasRecord('world.tickets', { ticket_id: SAML, priority: 'P2' }),
            effectCount(1),
          ],
        },
      },
    },
    {
      id: 'second-approval-late',
      description:
        'the second approval comes two hours later: wait for it, then raise the SAML ticket once, on its own approval',
      faults: [
        { kind: 'approval-delayed', trigger: { on: 'approval', nth: 2 }, delayMs: 2 * 3_600_000 },
      ],
    },
    {
      id: 'priority-throttled',
      description:
        'the helpdesk rate-limits the second priority change: wait out the retry-after, then send it with the approval it still holds',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'set_priority', nth: 2 },
          retryAfterMs: 45_000,
        },
      ],
    },
    {
      id: 'crash-after-first-p1',
      description:
        'the process dies as the helpdesk applies the iOS P1: resume, find it raised, do not send it again, and ask for the SAML approval',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'ios-p1' } },
      ],
    },
  ],
  tags: ['approval', 'multi-approval'],
});
