export {
  GROUP_OF,
  PRIORITIES,
  SLA_TARGET_MINUTES,
  TEAMS,
  TICKETS_REFERENCE_DATE,
  generateTicketsData,
} from './data.js';
export type {
  AgentStatus,
  Comment,
  CustomerPlan,
  Escalation,
  EscalationTarget,
  GroupId,
  Priority,
  Product,
  Requester,
  SupportAgent,
  Team,
  Ticket,
  TicketStatus,
  TicketType,
  TicketsData,
  TicketsDataOptions,
} from './data.js';
export * from './schemas.js';
export {
  TicketsWorld,
  assignmentIdentity,
  escalationIdentity,
  noteIdentity,
  priorityIdentity,
  replyIdentity,
} from './world.js';
export type {
  AgentRecord,
  EscalationRecord,
  NoteRecord,
  ReplyRecord,
  TicketRecord,
  TicketsState,
  TicketsWorldOptions,
} from './world.js';
