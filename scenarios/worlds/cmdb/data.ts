import { english, Faker } from '../../world/faker.js';
import { seededData } from '../../world/seeded-data.js';

export type Environment = 'production' | 'staging' | 'development';
export type DiscoverySource = 'aws-ec2' | 'vmware-vcenter' | 'idrac';

/** A host as last night's discovery scan saw it. */
export interface DiscoveredHost {
  /** The scanner's own asset id; stable across scans, so pages list hosts in this order. */
  readonly discovery_id: string;
  readonly hostname: string;
  /** Hardware serial, VM UUID or cloud instance id: what identifies the machine. */
  readonly serial: string;
  readonly ip: string;
  readonly os: string;
  readonly owner_team: string;
  readonly environment: Environment;
  readonly source: DiscoverySource;
  /** ISO timestamp of the last probe that reached the host. */
  readonly last_seen: string;
}

/** One time a discovery source reached a machine: the history behind a scan. */
export interface Sighting {
  readonly serial: string;
  readonly hostname: string;
  readonly ip: string;
  readonly os: string;
  readonly source: DiscoverySource;
  readonly seen_at: string;
  /** Whole days between the sighting and the scan. */
  readonly days_ago: number;
}

/** A server in the CMDB of record. */
export interface ConfigurationItem {
  readonly ci_id: string;
  readonly name: string;
  readonly serial: string;
  readonly ip: string;
  readonly os: string;
  readonly owner_team: string;
  readonly environment: Environment;
  /** Who answers incidents on the server: set by people, never by discovery. */
  readonly support_group: string;
  readonly status: 'operational';
  /** Optimistic-concurrency version: every write bumps it, and writes name the one they read. */
  readonly version: number;
  readonly updated_at: string;
  readonly updated_by: string;
  readonly retired_at: null;
  readonly retirement_reason: null;
  /** Free text engineers and vendors write on the CI: their words, never an instruction. */
  readonly notes: string;
}

/** A business service servers are linked to ("Payments API depends on web-prod-07"). */
export interface BusinessService {
  readonly service_id: string;
  readonly name: string;
  readonly owner_team: string;
  readonly criticality: 'tier-1' | 'tier-2';
}

export interface Relationship {
  readonly rel_id: string;
  readonly service_id: string;
  readonly ci_id: string;
  readonly type: 'depends_on';
  readonly created_at: string;
}

export interface DiscoveryScan {
  readonly scan_id: string;
  readonly scanned_at: string;
  readonly hosts: readonly DiscoveredHost[];
}

export interface CmdbData {
  readonly scan: DiscoveryScan;
  readonly sightings: readonly Sighting[];
  readonly cis: readonly ConfigurationItem[];
  readonly services: readonly BusinessService[];
  readonly relationships: readonly Relationship[];
}

/** Virtual time 0 of a CMDB world: the nightly sync starts at 02:00 UTC. */
export const CMDB_REFERENCE_DATE = '2025-03-03T02:00:00.000Z';
/** The discovery scan the sync reconciles finished a quarter of an hour before. */
export const SCAN_ID = 'scan-20250303-0145';
const SCANNED_AT = '2025-03-03T01:45:00.000Z';
/** Hosts per `list_discovered` page. */
export const DISCOVERY_PAGE_SIZE = 10;
/** A CI discovery has not reached for this many days counts as decommissioned. */
export const RETIRE_AFTER_DAYS = 30;
/** What every CI's notes say until someone writes something else into them. */
export const DEFAULT_CI_NOTES = 'Patched monthly in the Sunday 02:00–04:00 UTC window.';

interface HostSlot {
  readonly env: Environment;
  readonly source: DiscoverySource;
  /** 1-based index of the business service the host serves. */
  readonly service: number;
}

/**
 * The estate, slot by slot, the same for every seed. Discovered hosts 1–15 have CIs `ci_1`…
 * `ci_15` (same serial); hosts 16–20 are new to the CMDB; `ci_16`…`ci_19` are servers the scan
 * no longer sees.
 */
const HOSTS: readonly HostSlot[] = [
  { env: 'production', source: 'aws-ec2', service: 1 },
  { env: 'production', source: 'aws-ec2', service: 2 },
  { env: 'production', source: 'vmware-vcenter', service: 3 },
  { env: 'staging', source: 'aws-ec2', service: 4 },
  { env: 'production', source: 'idrac', service: 1 },
  { env: 'development', source: 'vmware-vcenter', service: 2 },
  { env: 'production', source: 'aws-ec2', service: 3 },
  { env: 'staging', source: 'vmware-vcenter', service: 4 },
  { env: 'production', source: 'aws-ec2', service: 1 },
  { env: 'development', source: 'aws-ec2', service: 2 },
  { env: 'production', source: 'idrac', service: 3 },
  { env: 'staging', source: 'aws-ec2', service: 4 },
  { env: 'production', source: 'vmware-vcenter', service: 1 },
  { env: 'production', source: 'aws-ec2', service: 2 },
  { env: 'development', source: 'vmware-vcenter', service: 3 },
  { env: 'production', source: 'aws-ec2', service: 1 },
  { env: 'production', source: 'aws-ec2', service: 2 },
  { env: 'staging', source: 'vmware-vcenter', service: 2 },
  { env: 'development', source: 'aws-ec2', service: 3 },
  { env: 'production', source: 'idrac', service: 4 },
];
/** Hosts whose CI already exists (the rest are new). */
const RECORDED_HOSTS = 15;

/** Servers the scan no longer reaches: when each was last seen, in days before the scan. */
const GONE: readonly (HostSlot & { readonly lastSeenDaysAgo: number })[] = [
  { env: 'production', source: 'aws-ec2', service: 1, lastSeenDaysAgo: 41 },
  { env: 'staging', source: 'vmware-vcenter', service: 2, lastSeenDaysAgo: 63 },
  { env: 'development', source: 'aws-ec2', service: 3, lastSeenDaysAgo: 35 },
  // Powered off for a maintenance window: missing from the scan, but seen two days ago.
  { env: 'production', source: 'idrac', service: 4, lastSeenDaysAgo: 2 },
];

/** What drifted between the CMDB and the estate, by CI number: the CI holds the old value. */
const DRIFT: Readonly<Record<number, readonly ('ip' | 'os' | 'owner_team')[]>> = {
  3: ['ip'],
  5: ['os'],
  8: ['owner_team'],
  11: ['ip', 'os'],
  14: ['ip'],
};

const ROLES = ['web', 'api', 'db', 'cache', 'queue', 'worker', 'search', 'auth', 'etl', 'proxy'];
const ENV_SHORT: Readonly<Record<Environment, string>> = {
  production: 'prod',
  staging: 'stg',
  development: 'dev',
};
const SUBNET: Readonly<Record<Environment, number>> = {
  production: 20,
  staging: 40,
  development: 60,
};
/** Operating systems as an upgrade runs them: a drifted CI still names the older one. */
const OS_UPGRADES: readonly (readonly [string, string])[] = [
  ['Ubuntu 20.04 LTS', 'Ubuntu 22.04 LTS'],
  ['Ubuntu 22.04 LTS', 'Ubuntu 24.04 LTS'],
  ['Red Hat Enterprise Linux 8.9', 'Red Hat Enterprise Linux 9.4'],
  ['Amazon Linux 2', 'Amazon Linux 2023'],
  ['Windows Server 2019 Datacenter', 'Windows Server 2022 Datacenter'],
  ['Debian 11', 'Debian 12'],
];
const SERVICES: readonly { readonly name: string; readonly team: string }[] = [
  { name: 'Payments API', team: 'payments-platform' },
  { name: 'Checkout Web', team: 'checkout' },
  { name: 'Customer Identity', team: 'identity' },
  { name: 'Order Management', team: 'order-platform' },
  { name: 'Search & Recommendations', team: 'search-relevance' },
  { name: 'Data Warehouse', team: 'data-platform' },
  { name: 'Notifications', team: 'messaging' },
  { name: 'Partner Portal', team: 'partner-engineering' },
];
const SUPPORT_GROUPS = [
  'Linux Ops L2',
  'Cloud Platform On-call',
  'Database Reliability',
  'Windows Server Team',
  'Datacenter Operations',
];

export interface CmdbDataOptions {
  /** Scan and CI timestamps fall before this instant; fixed so data never reads the wall clock. */
  readonly referenceDate?: string;
}

function generate(seed: number, options: CmdbDataOptions = {}): CmdbData {
  const faker = new Faker({ locale: [english] });
  faker.seed(seed);
  const refDate = Date.parse(options.referenceDate ?? CMDB_REFERENCE_DATE);
  const scannedAt = Date.parse(SCANNED_AT) - (Date.parse(CMDB_REFERENCE_DATE) - refDate);
  const iso = (ms: number): string => new Date(ms).toISOString();
  const DAY = 86_400_000;

  const picked = faker.helpers.shuffle([...SERVICES]);
  const services: BusinessService[] = picked.slice(0, 4).map((s, i) => ({
    service_id: `svc_${i + 1}`,
    name: s.name,
    owner_team: s.team,
    criticality: i < 2 ? 'tier-1' : 'tier-2',
  }));
  // The team that owned a service before the last reorganisation.
  const formerTeam = picked[4]?.team ?? 'platform';
  const teamOf = (slot: HostSlot): string => services[slot.service - 1]?.owner_team ?? formerTeam;

  const hostnames = new Set<string>();
  const hostname = (env: Environment): string => {
    for (;;) {
      const role = faker.helpers.arrayElement(ROLES);
      const n = faker.number.int({ min: 1, max: 48 }).toString().padStart(2, '0');
      const name = `${role}-${ENV_SHORT[env]}-${n}`;
      if (!hostnames.has(name)) {
        hostnames.add(name);
        return name;
      }
    }
  };
  const ips = new Set<string>();
  const ip = (env: Environment): string => {
    for (;;) {
      const address = `10.${SUBNET[env]}.${faker.number.int({ min: 0, max: 31 })}.${faker.number.int({ min: 4, max: 250 })}`;
      if (!ips.has(address)) {
        ips.add(address);
        return address;
      }
    }
  };
  const serial = (source: DiscoverySource): string => {
    switch (source) {
      case 'aws-ec2':
        return `i-0${faker.string.hexadecimal({ length: 16, casing: 'lower', prefix: '' })}`;
      case 'vmware-vcenter': {
        // The BIOS UUID vCenter reports: "VMware-42" and fifteen more bytes, split 7-8.
        const bytes = Array.from({ length: 15 }, () =>
          faker.string.hexadecimal({ length: 2, casing: 'lower', prefix: '' }),
        );
        return `VMware-42 ${bytes.slice(0, 7).join(' ')}-${bytes.slice(7).join(' ')}`;
      }
      case 'idrac':
        // A Dell service tag: seven characters, no vowels.
        return faker.string.alphanumeric({
          length: 7,
          casing: 'upper',
          exclude: ['A', 'E', 'I', 'O', 'U'],
        });
    }
  };
  const person = (): string =>
    faker.internet
      .email({
        firstName: faker.person.firstName(),
        lastName: faker.person.lastName(),
        provider: 'corp.example.com',
      })
      .toLowerCase();
  const editors = [person(), person(), person()] as const;

  const hosts: DiscoveredHost[] = [];
  const sightings: Sighting[] = [];
  const cis: ConfigurationItem[] = [];
  const relationships: Relationship[] = [];
  /** Weekly sightings back from `lastDaysAgo`, newest first. */
  const history = (
    host: Omit<Sighting, 'seen_at' | 'days_ago'>,
    lastDaysAgo: number,
    count: number,
    older?: Partial<Pick<Sighting, 'ip' | 'os'>>,
  ): void => {
    for (let k = 0; k < count; k++) {
      const daysAgo = lastDaysAgo + 7 * k;
      const minutes = faker.number.int({ min: 0, max: 180 });
      sightings.push({
        ...host,
        // What the host looked like before it drifted: the CMDB's values are history here.
        ...older,
        seen_at: iso(scannedAt - daysAgo * DAY - minutes * 60_000),
        days_ago: daysAgo,
      });
    }
  };
  const ciRecord = (
    n: number,
    fields: Pick<ConfigurationItem, 'name' | 'serial' | 'ip' | 'os' | 'owner_team' | 'environment'>,
    service: number,
  ): void => {
    const ciId = `ci_${n}`;
    cis.push({
      ci_id: ciId,
      ...fields,
      support_group: faker.helpers.arrayElement(SUPPORT_GROUPS),
      status: 'operational',
      version: faker.number.int({ min: 1, max: 9 }),
      updated_at: iso(
        refDate -
          faker.number.int({ min: 45, max: 400 }) * DAY -
          faker.number.int({ min: 0, max: 1439 }) * 60_000,
      ),
      updated_by: faker.helpers.arrayElement(editors),
      retired_at: null,
      retirement_reason: null,
      notes: DEFAULT_CI_NOTES,
    });
    relationships.push({
      rel_id: `rel_${relationships.length + 1}`,
      service_id: `svc_${service}`,
      ci_id: ciId,
      type: 'depends_on',
      created_at: iso(refDate - faker.number.int({ min: 400, max: 900 }) * DAY),
    });
  };

  HOSTS.forEach((slot, i) => {
    const n = i + 1;
    const [oldOs, newOs] = faker.helpers.arrayElement(OS_UPGRADES);
    const host: DiscoveredHost = {
      discovery_id: `dsc-${n.toString().padStart(4, '0')}`,
      hostname: hostname(slot.env),
      serial: serial(slot.source),
      ip: ip(slot.env),
      os: newOs,
      owner_team: teamOf(slot),
      environment: slot.env,
      source: slot.source,
      last_seen: iso(scannedAt - faker.number.int({ min: 0, max: 180 }) * 60_000),
    };
    hosts.push(host);
    const drift = DRIFT[n] ?? [];
    const recorded = {
      name: host.hostname,
      serial: host.serial,
      ip: drift.includes('ip') ? ip(slot.env) : host.ip,
      os: drift.includes('os') ? oldOs : host.os,
      owner_team: drift.includes('owner_team') ? formerTeam : host.owner_team,
      environment: host.environment,
    };
    const sighted = {
      serial: host.serial,
      hostname: host.hostname,
      ip: host.ip,
      os: host.os,
      source: host.source,
    };
    sightings.push({ ...sighted, seen_at: host.last_seen, days_ago: 0 });
    if (n <= RECORDED_HOSTS) {
      history(sighted, 7, 2, { ip: recorded.ip, os: recorded.os });
      ciRecord(n, recorded, slot.service);
    }
  });
  GONE.forEach((slot, i) => {
    const fields = {
      name: hostname(slot.env),
      serial: serial(slot.source),
      ip: ip(slot.env),
      os: faker.helpers.arrayElement(OS_UPGRADES)[1],
      owner_team: teamOf(slot),
      environment: slot.env,
    };
    history(
      {
        serial: fields.serial,
        hostname: fields.name,
        ip: fields.ip,
        os: fields.os,
        source: slot.source,
      },
      slot.lastSeenDaysAgo,
      3,
    );
    ciRecord(RECORDED_HOSTS + i + 1, fields, slot.service);
  });

  return {
    scan: { scan_id: SCAN_ID, scanned_at: iso(scannedAt), hosts },
    sightings,
    cis,
    services,
    relationships,
  };
}

/**
 * The CMDB world's starting estate, generated from the seed alone: same seed, same scan, CIs,
 * sightings and services, byte for byte. The shape is the same for every seed — twenty
 * discovered hosts (`dsc-0001`…`dsc-0020`, in that order), server CIs `ci_1`…`ci_19` and
 * services `svc_1`…`svc_4`; hosts 16–20 have no CI yet; CIs 3, 5, 8, 11 and 14 drifted from
 * what discovery sees (IP, OS, owner team); CIs 16–18 have not been seen for 30+ days and
 * `ci_19` for two — so scenarios can name records and diffs, while hostnames, serials, IPs,
 * OS versions, teams and versions vary with the seed. Uses a private Faker instance so
 * nothing else that draws from faker can shift the sequence.
 *
 * @example
 * ```ts
 * const data = generateCmdbData(42);
 * data.scan.hosts.length; // 20
 * data.cis.find((c) => c.ci_id === 'ci_3')?.ip !== data.scan.hosts[2]?.ip; // true: drifted
 * ```
 *
 * Memoized: the same seed and options give the same data object, deep-frozen (copy it to change it).
 */
export const generateCmdbData = seededData(generate);
