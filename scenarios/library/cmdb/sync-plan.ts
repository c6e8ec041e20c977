import {
  DISCOVERY_PAGE_SIZE,
  generateCmdbData,
  type CmdbData,
  type DiscoveredHost,
} from '../../worlds/cmdb/data.js';

/** Where a discovered host sits in the scan: the page that lists it and its index there. */
export interface HostAt {
  readonly discoveryId: string;
  readonly page: number;
  readonly index: number;
  /** The business service the host's owner team runs. */
  readonly serviceId: string;
}

/** Where a CI sits in the CMDB listing (`list_cis`, by CI number). */
export interface CiAt {
  readonly ciId: string;
  readonly index: number;
  readonly production: boolean;
}

/** The fields discovery owns on a CI: what a sync may correct. */
export type DiscoveredField = 'ip' | 'os' | 'owner_team';

export interface Drift {
  readonly ci: CiAt;
  readonly host: HostAt;
  readonly fields: readonly DiscoveredField[];
}

/** What a sync has to do: hosts to register, CIs that drifted, CIs the scan no longer sees. */
export interface SyncPlan {
  readonly newHosts: readonly HostAt[];
  readonly drifted: readonly Drift[];
  /** Candidates only: whether each is retired is decided at run time from its sightings. */
  readonly unseen: readonly CiAt[];
}

const FIELDS: readonly DiscoveredField[] = ['ip', 'os', 'owner_team'];

/**
 * The diff between a seeded scan and a seeded CMDB, as positions rather than values: the
 * blueprint's operations read every hostname, serial, IP and version from the run's own reads
 * (`{ $ref: 'discovered-2.hosts.5.serial' }`), so the plan computed from the scenario's seed
 * fits every trial seed — the world's shape (which slots are new, drifted or gone) is the same
 * for all of them, only the values differ.
 *
 * @example
 * ```ts
 * const plan = syncPlan(generateCmdbData(21));
 * plan.newHosts.map((h) => h.discoveryId); // ['dsc-0016', …, 'dsc-0020']
 * ```
 */
export function syncPlan(data: CmdbData): SyncPlan {
  const cis = new Map(data.cis.map((ci, index) => [ci.serial, { ci, index }]));
  const scanned = new Set(data.scan.hosts.map((h) => h.serial));
  const hostAt = (host: DiscoveredHost, i: number): HostAt => ({
    discoveryId: host.discovery_id,
    page: Math.floor(i / DISCOVERY_PAGE_SIZE) + 1,
    index: i % DISCOVERY_PAGE_SIZE,
    serviceId: data.services.find((s) => s.owner_team === host.owner_team)?.service_id ?? 'svc_1',
  });
  const newHosts: HostAt[] = [];
  const drifted: Drift[] = [];
  data.scan.hosts.forEach((host, i) => {
    const recorded = cis.get(host.serial);
    if (!recorded) {
      newHosts.push(hostAt(host, i));
      return;
    }
    const fields = FIELDS.filter((f) => recorded.ci[f] !== host[f]);
    if (fields.length === 0) return;
    drifted.push({
      ci: ciAt(recorded.ci, recorded.index),
      host: hostAt(host, i),
      fields,
    });
  });
  const unseen = data.cis.flatMap((ci, index) => (scanned.has(ci.serial) ? [] : [ciAt(ci, index)]));
  return { newHosts, drifted, unseen };
}

/** The plan for a scenario's world seed. */
export function syncPlanForSeed(seed: number): SyncPlan {
  return syncPlan(generateCmdbData(seed));
}

function ciAt(ci: CmdbData['cis'][number], index: number): CiAt {
  return { ciId: ci.ci_id, index, production: ci.environment === 'production' };
}
