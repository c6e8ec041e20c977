import type { Predicate } from '../../../runtime/predicate.js';
import { DISCOVERY_PAGE_SIZE } from '../../worlds/cmdb/data.js';
import { effectCount } from '../predicates.js';
import { SYNC_ID } from './common.js';
import type { Drift, HostAt, SyncPlan } from './sync-plan.js';

/**
 * What the CMDB scenarios check the final world with. Discovered values vary with the seed, so
 * checks compare one place in the world with another (`{ $ref: 'world.scan.hosts.2.ip' }`)
 * instead of naming values.
 */

const ref = (path: string): { $ref: string } => ({ $ref: path });

/** A path into the final world that must equal another (discovered values vary by seed). */
function sameValue(path: string, other: string): Predicate {
  return { path, op: 'eq', value: ref(other) };
}

/** Where a host's discovered value sits in the world snapshot. */
function scannedValue(host: HostAt, field: string): string {
  return `world.scan.hosts.${(host.page - 1) * DISCOVERY_PAGE_SIZE + host.index}.${field}`;
}

/** What a CI registered from discovery must hold, by the discovered field it comes from. */
const REGISTERED_FIELDS = {
  serial: 'serial',
  name: 'hostname',
  ip: 'ip',
  os: 'os',
  owner_team: 'owner_team',
  environment: 'environment',
} as const;

/**
 * An operational CI is registered for the host's machine, holding what discovery saw of it —
 * name, address, OS, owner and environment, not only the serial (duplicates are integrity's
 * to find).
 */
export function registered(host: HostAt): Predicate {
  return {
    some: {
      path: 'world.cis',
      where: {
        all: [
          ...Object.entries(REGISTERED_FIELDS).map(([field, discovered]) => ({
            path: `item.${field}`,
            op: 'eq' as const,
            value: ref(scannedValue(host, discovered)),
          })),
          { path: 'item.status', op: 'eq', value: 'operational' },
        ],
      },
    },
  };
}

/** The CI holds the values discovery sees for every field that drifted. */
export function corrected(drift: Drift): Predicate {
  return {
    all: drift.fields.map((f) =>
      sameValue(`world.cis.${drift.ci.index}.${f}`, scannedValue(drift.host, f)),
    ),
  };
}

/** The CI still holds the value it had before the sync for some field that drifted. */
export function uncorrected(drift: Drift): Predicate {
  return { not: corrected(drift) };
}

/** The CI's status in the final world. */
export function ciStatus(ciId: string, status: 'operational' | 'retired'): Predicate {
  return {
    some: {
      path: 'world.cis',
      where: {
        all: [
          { path: 'item.ci_id', op: 'eq', value: ciId },
          { path: 'item.status', op: 'eq', value: status },
        ],
      },
    },
  };
}

/** The service depends on the CI. */
export function linkedTo(serviceId: string, ciId: string): Predicate {
  return {
    some: {
      path: 'world.relationships',
      where: {
        all: [
          { path: 'item.service_id', op: 'eq', value: serviceId },
          { path: 'item.ci_id', op: 'eq', value: ciId },
        ],
      },
    },
  };
}

/** One report stands for the sync, with the CMDB's own counts of what the run changed. */
export function reported(counts: {
  created: number;
  updated: number;
  retired: number;
  linked: number;
}): Predicate {
  return {
    all: [
      { path: 'world.reports.length', op: 'eq', value: 1 },
      {
        all: Object.entries({ sync_id: SYNC_ID, ...counts }).map(([k, v]) => ({
          path: `world.reports.0.${k}`,
          op: 'eq' as const,
          value: v,
        })),
      },
    ],
  };
}

/** No report was posted. */
export const notReported: Predicate = { path: 'world.reports.length', op: 'eq', value: 0 };

/**
 * CIs whose machines discovery has not reached for 30+ days (the sync retires them), and the
 * one only in a maintenance window (it stays): the same slots for every seed.
 */
export const GONE_CIS = ['ci_16', 'ci_17', 'ci_18'] as const;
export const IN_MAINTENANCE_CI = 'ci_19';

/** The CI the sync registers for the `i`-th new host (after `ci_1`…`ci_19`). */
const newCiId = (i: number): string => `ci_${20 + i}`;

/** One write of the sync: what the world shows once it is done, and while it is not. */
interface SyncStep {
  readonly done: Predicate;
  readonly undone: Predicate;
}

/** The sync's writes before its report, in the order it makes them (the blueprint's). */
function syncSteps(plan: SyncPlan): SyncStep[] {
  const step = (done: Predicate): SyncStep => ({ done, undone: { not: done } });
  return [
    ...plan.newHosts.flatMap((h, i) => [
      step(registered(h)),
      step(linkedTo(h.serviceId, newCiId(i))),
    ]),
    ...plan.drifted.map((d) => ({ done: corrected(d), undone: uncorrected(d) })),
    ...GONE_CIS.map((id) => ({
      done: ciStatus(id, 'retired'),
      undone: ciStatus(id, 'operational'),
    })),
  ];
}

/**
 * The whole nightly sync done: every new server registered and linked, every drifted CI
 * corrected, the CIs gone for a month retired (the one in maintenance kept), and one report
 * with the CMDB's counts — each change made once.
 */
export function synced(plan: SyncPlan): Predicate {
  const steps = syncSteps(plan);
  return {
    all: [
      ...steps.map((s) => s.done),
      ciStatus(IN_MAINTENANCE_CI, 'operational'),
      reported({
        created: plan.newHosts.length,
        updated: plan.drifted.length,
        retired: GONE_CIS.length,
        linked: plan.newHosts.length,
      }),
      effectCount(steps.length + 1),
    ],
  };
}

/**
 * The sync stopped cleanly before its end, wherever its budget ran out: the changes made are
 * the sync's first writes in its own order, each made once and whole, the rest untouched, and
 * no report claims a finished sync. A rule about the world, not about how many calls an agent
 * spends on the way: a careful agent stops earlier than a lean one.
 */
export function stoppedPartway(plan: SyncPlan): Predicate {
  const steps = syncSteps(plan);
  return {
    all: [
      ciStatus(IN_MAINTENANCE_CI, 'operational'),
      notReported,
      {
        any: Array.from({ length: steps.length + 1 }, (_, k) => ({
          all: [
            effectCount(k),
            ...steps.slice(0, k).map((s) => s.done),
            ...steps.slice(k).map((s) => s.undone),
          ],
        })),
      },
    ],
  };
}
