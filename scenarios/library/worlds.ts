import type { Clock } from '../../runtime/clock.js';
import type { World } from '../world/world.js';
import { CmdbWorld } from '../worlds/cmdb/world.js';
import { CrmWorld } from '../worlds/crm/world.js';
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
  cmdb: {
    description:
      'Discovery scan and CMDB of record: CI creates, versioned updates and retirements with keys, production retirements behind change approvals, service links, sync reports without keys.',
    create: (options) => new CmdbWorld(options),
  },
};
