import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate, ValueExpr } from '../../../runtime/predicate.js';

/** Shared pieces of the tickets scenarios: the support desk's budgets, contract and usual operations. */

export const TICKETS_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 6,
  virtualTimeMs: 6 * 3_600_000,
};

type ToolAuthorities = ContractInput['authority']['tools'];

/** Reading tickets by id: the ticket, its notes and its replies. */
export function ticketReads(tickets: readonly string[]): ToolAuthorities {
  const scoped = { ticket_id: [...tickets] };
  return {
    get_ticket: { risk: 'read', resources: scoped },
    list_notes: { risk: 'read', resources: scoped },
    list_replies: { risk: 'read', resources: scoped },
  };
}

/** Routing the named tickets to the named support agents. */
export function assignAuthority(
  tickets: readonly string[],
  assignees: readonly string[],
): ToolAuthorities {
  return {
    assign_ticket: {
      risk: 'medium',
      resources: { ticket_id: [...tickets], assignee_id: [...assignees] },
    },
  };
}

/**
 * Changing the priority of the named tickets. `p1` puts raising a ticket to P1 behind a
 * person's approval (the helpdesk asks for one too); `always` puts every change behind one, for
 * jobs that move a priority more than one step.
 */
export function priorityAuthority(
  tickets: readonly string[],
  approval: 'p1' | 'always' = 'p1',
): ToolAuthorities {
  return {
    set_priority: {
      risk: 'high',
      resources: { ticket_id: [...tickets] },
      approval:
        approval === 'always'
          ? 'always'
          : { when: { path: 'args.priority', op: 'eq', value: 'P1' } },
    },
  };
}

/** Internal notes and public replies on the named tickets. */
export function noteAuthority(tickets: readonly string[]): ToolAuthorities {
  return { add_internal_note: { risk: 'low', resources: { ticket_id: [...tickets] } } };
}
export function replyAuthority(tickets: readonly string[]): ToolAuthorities {
  return { send_reply: { risk: 'medium', resources: { ticket_id: [...tickets] } } };
}
export function escalateAuthority(tickets: readonly string[]): ToolAuthorities {
  return { escalate: { risk: 'high', resources: { ticket_id: [...tickets] } } };
}

/** The desk's contract for one job: its authority, budgets and bounded autonomy. */
export function ticketsContract(options: {
  objective: string;
  tools: ToolAuthorities;
  decisionBoundary?: ContractInput['decisionBoundary'];
  evidenceRequired?: ContractInput['evidenceRequired'];
  budgets?: Partial<typeof TICKETS_BUDGETS>;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: { tools: options.tools },
    autonomy: 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    budgets: { ...TICKETS_BUDGETS, ...options.budgets },
  };
}

type Ref = string | { $ref: string };

/** A fresh read of one ticket. */
export const ticketRead = (ticket: Ref): { tool: string; args: Record<string, ValueExpr> } => ({
  tool: 'get_ticket',
  args: { ticket_id: ticket },
});

/** Read a ticket as operation `id` (default `ticket`). */
export function readTicket(ticket: Ref, id = 'ticket'): OperationInput {
  return {
    id,
    description: 'Read the ticket and its conversation',
    tool: 'get_ticket',
    kind: 'read',
    args: { ticket_id: ticket },
  };
}

/** Read a group's roster as operation `roster`: who is online, their skills, capacity and load. */
export function readRoster(group: string): OperationInput {
  return {
    id: 'roster',
    description: `Read the ${group} group's roster`,
    tool: 'list_teams',
    kind: 'read',
    args: { group_id: group },
  };
}

/** The agent named in the call is online with room under their capacity, on a fresh roster. */
export function agentAvailable(group: string): {
  description: string;
  read: { tool: string; args: Record<string, ValueExpr> };
  expect: Predicate;
} {
  return {
    description: 'the assignee is online with room under their capacity',
    read: { tool: 'list_teams', args: { group_id: group } },
    expect: {
      some: {
        path: 'fresh.agents',
        where: {
          all: [
            { path: 'item.agent_id', op: 'eq', value: { $ref: 'args.assignee_id' } },
            { path: 'item.status', op: 'eq', value: 'online' },
            { path: 'item.open_tickets', op: 'lt', value: { $ref: 'item.capacity' } },
          ],
        },
      },
    },
  };
}

const assignedTo: Predicate = {
  path: 'fresh.assignee_id',
  op: 'eq',
  value: { $ref: 'action.args.assignee_id' },
};

/**
 * A colleague already made this change to the ticket (`field` already holds the call's `arg`):
 * then the write is not sent again, so the change is made once.
 */
function alreadyOnTicket(
  field: 'assignee_id' | 'priority',
  description: string,
): NonNullable<OperationInput['alreadyDone']> {
  return {
    description,
    read: ticketRead({ $ref: 'args.ticket_id' }),
    expect: { path: `fresh.${field}`, op: 'eq', value: { $ref: `args.${field}` } },
  };
}

/**
 * Route a ticket to a support agent. The routing API honours keys, so an unknown outcome is
 * settled by resending under the same key; without keys, by reading the ticket.
 */
export function assignOperation(options: {
  id: string;
  ticket: Ref;
  assignee: Ref;
  description?: string;
  preconditions?: OperationInput['preconditions'];
}): OperationInput {
  return {
    id: options.id,
    description: options.description ?? 'Assign the ticket',
    tool: 'assign_ticket',
    kind: 'write',
    args: { ticket_id: options.ticket, assignee_id: options.assignee },
    alreadyDone: alreadyOnTicket('assignee_id', 'the ticket is already with that assignee'),
    preconditions: options.preconditions ?? [],
    postconditions: [
      {
        description: 'the ticket shows the new assignee',
        read: ticketRead({ $ref: 'action.args.ticket_id' }),
        expect: assignedTo,
      },
    ],
    idempotent: true,
    reconcile: { read: ticketRead({ $ref: 'action.args.ticket_id' }), found: assignedTo },
  };
}

const hasPriority: Predicate = {
  path: 'fresh.priority',
  op: 'eq',
  value: { $ref: 'action.args.priority' },
};

/** Set a ticket's priority; keys honoured, reconcilable by reading the ticket. */
export function priorityOperation(
  ticket: string,
  priority: 'P1' | 'P2' | 'P3' | 'P4',
  reason: string,
  preconditions: OperationInput['preconditions'] = [],
): OperationInput {
  return {
    id: 'priority',
    description: `Set the ticket to ${priority}`,
    tool: 'set_priority',
    kind: 'write',
    args: { ticket_id: ticket, priority, reason },
    alreadyDone: alreadyOnTicket('priority', `the ticket is already ${priority}`),
    preconditions,
    postconditions: [
      {
        description: `the ticket shows ${priority}`,
        read: ticketRead(ticket),
        expect: hasPriority,
      },
    ],
    idempotent: true,
    reconcile: { read: ticketRead(ticket), found: hasPriority },
  };
}

/** An entry with exactly this body is in the list at `fresh.<list>`. */
function bodyFound(list: 'notes' | 'replies', body: string): Predicate {
  return { some: { path: `fresh.${list}`, where: { path: 'item.body', op: 'eq', value: body } } };
}

/** Add an internal note. Notes have no keys: an unknown outcome is settled by listing the notes. */
export function noteOperation(ticket: string, body: string, id = 'note'): OperationInput {
  const read = { tool: 'list_notes', args: { ticket_id: ticket } };
  return {
    id,
    description: 'Leave an internal note for the team',
    tool: 'add_internal_note',
    kind: 'write',
    args: { ticket_id: ticket, body },
    // A note acknowledged is not a note on the ticket until a fresh read shows it.
    postconditions: [
      { description: 'the note is on the ticket', read, expect: bodyFound('notes', body) },
    ],
    idempotent: false,
    reconcile: { read, found: bodyFound('notes', body) },
  };
}

/** Email the customer. Replies have no keys: an unknown outcome is settled by listing the replies. */
export function replyOperation(ticket: string, body: string): OperationInput {
  const read = { tool: 'list_replies', args: { ticket_id: ticket } };
  return {
    id: 'reply',
    description: 'Reply to the customer',
    tool: 'send_reply',
    kind: 'write',
    args: { ticket_id: ticket, body },
    postconditions: [
      { description: 'the reply is on the ticket', read, expect: bodyFound('replies', body) },
    ],
    idempotent: false,
    reconcile: { read, found: bodyFound('replies', body) },
  };
}

const escalatedTo: Predicate = {
  path: 'fresh.escalation.target',
  op: 'eq',
  value: { $ref: 'action.args.target' },
};

/** Escalate a ticket; keys honoured, reconcilable by reading the ticket's escalation. */
export function escalateOperation(
  ticket: string,
  target: 'engineering' | 'tier2' | 'security',
  summary: string,
): OperationInput {
  return {
    id: 'escalate',
    description: `Escalate the ticket to ${target}`,
    tool: 'escalate',
    kind: 'write',
    args: { ticket_id: ticket, target, summary },
    postconditions: [
      {
        description: `the ticket is escalated to ${target}`,
        read: ticketRead(ticket),
        expect: escalatedTo,
      },
    ],
    idempotent: true,
    reconcile: { read: ticketRead(ticket), found: escalatedTo },
  };
}
