import type { Clock } from '../../runtime/clock.js';
import type { World } from '../world/world.js';
import { CrmWorld } from '../worlds/crm/world.js';
import { NotificationsWorld } from '../worlds/notifications/world.js';
import { RefundsWorld } from '../worlds/refunds/world.js';

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
  notifications: {
    description:
      'Customer notifications (email and SMS) with no idempotency keys: a "was it sent?" query, consent, quiet hours, a daily cap, bulk sends with approvals.',
    create: (options) => new NotificationsWorld(options),
  },
};
