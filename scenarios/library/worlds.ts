import type { Clock } from '../../runtime/clock.js';
import type { World } from '../world/world.js';
import { RecordedWorld, type RecordedWorldOptions } from '../world/recorded-world.js';
import { CmdbWorld } from '../worlds/cmdb/world.js';
import { CrmWorld } from '../worlds/crm/world.js';
import { ExpensesWorld } from '../worlds/expenses/world.js';
import { NotificationsWorld } from '../worlds/notifications/world.js';
import { RefundsWorld } from '../worlds/refunds/world.js';
import { ResearchWorld } from '../worlds/research/world.js';
import { RetailWorld } from '../worlds/tau-retail/world.js';
import { TicketsWorld } from '../worlds/tickets/world.js';

export interface WorldFactory {
  readonly description: string;
  create(options: { seed: number; clock: Clock } & Record<string, unknown>): World<unknown>;
}

/** Worlds by the name scenarios use. */
export const WORLDS: Readonly<Record<string, WorldFactory>> = {
  refunds: {
    description:
      'Support desk payments: orders, refunds with idempotency keys and approvals, customer messages without keys.',
    create: (options) => new RefundsWorld(options),
  },
  crm: {
    description:
      'Sales-ops CRM: account updates with version checks and idempotency keys, duplicate merges with approvals, notes without keys.',
    create: (options) => new CrmWorld(options),
  },
  expenses: {
    description:
      'Finance ops: expense claims with receipts, policy checks, controller sign-off with delegation, ACH payouts with idempotency keys and recalls.',
    create: (options) => new ExpensesWorld(options),
  },
  tickets: {
    description:
      'Helpdesk ticket routing: a queue with SLA deadlines, a rate-limited assignment API with idempotency keys, priority changes with approvals, escalations, notes and replies without keys, customer text that may carry hostile instructions.',
    create: (options) => new TicketsWorld(options),
  },
  notifications: {
    description:
      'Customer notifications (email and SMS) with no idempotency keys: a "was it sent?" query, consent, quiet hours, a daily cap, bulk sends with approvals.',
    create: (options) => new NotificationsWorld(options),
  },
  cmdb: {
    description:
      'Discovery scan and CMDB of record: CI creates, versioned updates and retirements with keys, production retirements behind change approvals, service links, sync reports without keys.',
    create: (options) => new CmdbWorld(options),
  },
  recorded: {
    description:
      'A recorded session as a world: the cassette\'s tools, each call answered as recorded (options: cassette, the file; match, "sequence" to replay it in order or "state" to use it as a fixture).',
    create: (options) => new RecordedWorld(options as typeof options & RecordedWorldOptions),
  },
  research: {
    description:
      'Analyst research desk: a corpus of sources stating claims (some conflicting, some later corrected or retracted), answers filed with each claim attributed to a source, or unresolved.',
    create: (options) => new ResearchWorld(options),
  },
  'tau-retail': {
    description:
      'The τ-bench retail store (sierra-research/tau-bench, MIT): 500 users, 50 products, 1,000 orders; cancel or modify pending orders, return or exchange delivered items, gift card balances, refunds to the original method, every store write confirmed by the customer.',
    create: (options) =>
      new RetailWorld({
        ...options,
        requiredOutputs: Array.isArray(options.requiredOutputs)
          ? options.requiredOutputs.map(String)
          : [],
        ...(typeof options.honourIdempotencyKeys === 'boolean'
          ? { honourIdempotencyKeys: options.honourIdempotencyKeys }
          : {}),
      }),
  },
};
