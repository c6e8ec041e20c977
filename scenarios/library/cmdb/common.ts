import type { BlueprintInput, OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate, ValueExpr } from '../../../runtime/predicate.js';
import { RETIRE_AFTER_DAYS } from '../../worlds/cmdb/data.js';
import type { CiAt, DiscoveredField, Drift, HostAt, SyncPlan } from './sync-plan.js';

/** Shared pieces of the CMDB scenarios: the sync's authority and its operations. */

/** The sync id every CMDB scenario reports under (the scan is last night's). */
export const SYNC_ID = 'sync-20250303-nightly';

/**
 * The model behind the infrastructure team's sync agent, as a price list: a 3,000-token prompt,
 * each finished step's result carried as ~400 more tokens of context, ~150 tokens an answer.
 */
export const SYNC_AGENT_MODEL = {
  name: 'infra-sync-agent',
  baseInputTokens: 3_000,
  inputTokensPerStep: 400,
  outputTokensPerProposal: 150,
  usdPerMillionInputTokens: 3,
  usdPerMillionOutputTokens: 15,
};
export const REPORT_SUMMARY =
  'Nightly reconciliation of the discovery scan against the CMDB: new servers registered and linked, drifted fields corrected, servers gone 30+ days retired.';

export const CMDB_BUDGETS = {
  toolCalls: 120,
  retries: 10,
  externalWrites: 30,
  virtualTimeMs: 8 * 3_600_000,
};

const ref = (path: string): { $ref: string } => ({ $ref: path });
const opId = (ciId: string): string => ciId.replace('_', '-');
const hostPath = (host: HostAt, field: string): string =>
  `discovered-${host.page}.hosts.${host.index}.${field}`;
const ciPath = (ci: CiAt, field: string): string => `cmdb.cis.${ci.index}.${field}`;

/**
 * What the sync may touch: every read; creating CIs; updating and retiring the CIs the plan
 * names (retiring a production CI only with a change approval); linking to the services the
 * new hosts serve; one report under the sync id. Reads are unscoped so the run can look at the
 * CIs it creates, whose ids it cannot know beforehand.
 */
export function cmdbAuthority(scope: {
  update?: readonly string[];
  retire?: readonly CiAt[];
  link?: readonly string[];
  create?: boolean;
  report?: boolean;
}): ContractInput['authority'] {
  const production = (scope.retire ?? []).filter((c) => c.production).map((c) => c.ciId);
  return {
    tools: {
      list_discovered: { risk: 'read' },
      lookup_host: { risk: 'read' },
      list_cis: { risk: 'read' },
      get_ci: { risk: 'read', resources: { ci_id: '*' } },
      find_ci: { risk: 'read' },
      list_relationships: { risk: 'read' },
      ...(scope.create ? { create_ci: { risk: 'medium' as const } } : {}),
      ...(scope.update
        ? { update_ci: { risk: 'medium' as const, resources: { ci_id: [...scope.update] } } }
        : {}),
      ...(scope.retire
        ? {
            retire_ci: {
              risk: 'high' as const,
              resources: { ci_id: scope.retire.map((c) => c.ciId) },
              approval:
                production.length > 0
                  ? { when: { path: 'args.ci_id', op: 'in' as const, value: production } }
                  : ('never' as const),
            },
          }
        : {}),
      ...(scope.link
        ? { link_ci: { risk: 'low' as const, resources: { service_id: [...scope.link] } } }
        : {}),
      ...(scope.report
        ? {
            post_sync_report: { risk: 'low' as const, resources: { sync_id: [SYNC_ID] } },
            list_sync_reports: { risk: 'read' as const, resources: { sync_id: [SYNC_ID] } },
          }
        : {}),
    },
  };
}

/** The infrastructure team's contract for a piece of CMDB work. */
export function cmdbContract(options: {
  objective: string;
  authority: ContractInput['authority'];
  decisionBoundary?: ContractInput['decisionBoundary'];
  evidenceRequired?: ContractInput['evidenceRequired'];
  budgets?: Partial<ContractInput['budgets']>;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: options.authority,
    autonomy: 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    budgets: { ...CMDB_BUDGETS, ...options.budgets },
  };
}

/** Read page `n` of last night's scan as operation `discovered-<n>`. */
export function readScanPage(n: number): OperationInput {
  return {
    id: `discovered-${n}`,
    description: `Read page ${n} of the discovery scan`,
    tool: 'list_discovered',
    kind: 'read',
    args: { page: n },
  };
}

/** Read every server CI as operation `cmdb`. */
export const readCmdb: OperationInput = {
  id: 'cmdb',
  description: 'List the server CIs in the CMDB',
  tool: 'list_cis',
  kind: 'read',
  args: {},
};

/** The CI's machine has been seen within the retirement window. */
const seenRecently = (path: string): Predicate => ({
  some: { path, where: { path: 'item.days_ago', op: 'lt', value: RETIRE_AFTER_DAYS } },
});

const serialIn = (path: string, serial: ValueExpr): Predicate => ({
  some: { path, where: { path: 'item.serial', op: 'eq', value: serial } },
});

const operationalCiFor = (serial: ValueExpr): Predicate => ({
  some: {
    path: 'fresh.cis',
    where: {
      all: [
        { path: 'item.serial', op: 'eq', value: serial },
        { path: 'item.status', op: 'eq', value: 'operational' },
      ],
    },
  },
});

/**
 * Register a discovered host as a CI — only while the CMDB listing has no CI for its serial,
 * and only if none appeared since (the CMDB does not deduplicate). Keys are honoured, so an
 * unknown outcome is settled by resending under the same key.
 */
export function createCi(host: HostAt): OperationInput {
  const serial = ref(hostPath(host, 'serial'));
  const byActionSerial = { tool: 'find_ci', args: { serial: ref('action.args.serial') } };
  return {
    id: `create-${host.discoveryId}`,
    description: `Register discovered host ${host.discoveryId} as a CI`,
    tool: 'create_ci',
    kind: 'write',
    args: {
      name: ref(hostPath(host, 'hostname')),
      serial,
      ip: ref(hostPath(host, 'ip')),
      os: ref(hostPath(host, 'os')),
      owner_team: ref(hostPath(host, 'owner_team')),
      environment: ref(hostPath(host, 'environment')),
      discovery_id: host.discoveryId,
    },
    when: {
      all: [
        { path: hostPath(host, 'discovery_id'), op: 'eq', value: host.discoveryId },
        { not: serialIn('cmdb.cis', serial) },
      ],
    },
    preconditions: [
      {
        description: 'no CI holds the serial yet',
        read: { tool: 'find_ci', args: { serial: ref('args.serial') } },
        expect: { path: 'fresh.cis.length', op: 'eq', value: 0 },
      },
    ],
    postconditions: [
      {
        description: 'exactly one operational CI holds the serial',
        read: byActionSerial,
        expect: {
          all: [
            { path: 'fresh.cis.length', op: 'eq', value: 1 },
            operationalCiFor(ref('action.args.serial')),
          ],
        },
      },
    ],
    idempotent: true,
    reconcile: { read: byActionSerial, found: operationalCiFor(ref('action.args.serial')) },
  };
}

/** Link the CI just registered for `host` to the business service its team runs. */
export function linkCi(host: HostAt): OperationInput {
  const created = `create-${host.discoveryId}`;
  const relationships = { tool: 'list_relationships', args: { ci_id: ref('action.args.ci_id') } };
  const linked: Predicate = {
    some: {
      path: 'fresh.relationships',
      where: { path: 'item.service_id', op: 'eq', value: ref('action.args.service_id') },
    },
  };
  return {
    id: `link-${host.discoveryId}`,
    description: `Record that ${host.serviceId} depends on the new CI`,
    tool: 'link_ci',
    kind: 'write',
    args: { service_id: host.serviceId, ci_id: ref(`${created}.ci_id`) },
    when: { path: `${created}.ci_id`, op: 'exists' },
    postconditions: [
      { description: 'the service depends on the CI', read: relationships, expect: linked },
    ],
    idempotent: true,
    reconcile: { read: relationships, found: linked },
  };
}

/** Read one CI (`ci_3` as operation `read-ci-3`) before changing it. */
export function readCi(ciId: string): OperationInput {
  return {
    id: `read-${opId(ciId)}`,
    description: `Read ${ciId}`,
    tool: 'get_ci',
    kind: 'read',
    args: { ci_id: ciId },
  };
}

/**
 * Correct the fields of a CI that drifted from what discovery sees — only while the scan's
 * host is the CI's machine (same serial) and a field still differs. The version read is named
 * in the write; a fresh read checks it first, so a colleague's edit sends the run back to read
 * again. With `corroborate`, the machine's own sighting today must show the values too: two
 * discovery views that disagree are no ground for a write.
 */
export function updateCi(drift: Drift, options: { corroborate?: boolean } = {}): OperationInput {
  const read = `read-${opId(drift.ci.ciId)}`;
  const ciRead = { tool: 'get_ci', args: { ci_id: drift.ci.ciId } };
  const shows = (fields: readonly DiscoveredField[]): Predicate => ({
    all: fields.map((f) => ({
      path: `fresh.${f}`,
      op: 'eq' as const,
      value: ref(`action.args.${f}`),
    })),
  });
  const args: Record<string, ValueExpr> = {
    ci_id: drift.ci.ciId,
    expected_version: ref(`${read}.version`),
  };
  for (const f of drift.fields) args[f] = ref(hostPath(drift.host, f));
  return {
    id: `update-${opId(drift.ci.ciId)}`,
    description: `Correct ${drift.fields.join(', ')} on ${drift.ci.ciId} from discovery`,
    tool: 'update_ci',
    kind: 'write',
    args,
    when: {
      all: [
        { path: hostPath(drift.host, 'serial'), op: 'eq', value: ref(`${read}.serial`) },
        { path: `${read}.status`, op: 'eq', value: 'operational' },
        {
          any: drift.fields.map((f) => ({
            path: hostPath(drift.host, f),
            op: 'ne' as const,
            value: ref(`${read}.${f}`),
          })),
        },
      ],
    },
    preconditions: [
      ...(options.corroborate
        ? [
            {
              description: 'discovery reached the machine today and saw these values',
              read: { tool: 'lookup_host', args: { serial: ref(`${read}.serial`) } },
              expect: {
                some: {
                  path: 'fresh.sightings',
                  where: {
                    all: [
                      { path: 'item.days_ago', op: 'eq' as const, value: 0 },
                      ...drift.fields.map((f) => ({
                        path: `item.${f}`,
                        op: 'eq' as const,
                        value: ref(`args.${f}`),
                      })),
                    ],
                  },
                },
              },
            },
          ]
        : []),
      {
        description: 'nobody changed the CI since it was read',
        read: ciRead,
        expect: { path: 'fresh.version', op: 'eq', value: ref('args.expected_version') },
      },
    ],
    postconditions: [
      {
        description: 'the CI shows the discovered values',
        read: ciRead,
        expect: shows(drift.fields),
      },
    ],
    idempotent: true,
    reconcile: { read: ciRead, found: shows(drift.fields) },
  };
}

/** Read the sighting history of a listed CI's machine as `sightings-ci-16`. */
export function readSightings(ci: CiAt): OperationInput {
  return {
    id: `sightings-${opId(ci.ciId)}`,
    description: `Look up when discovery last reached ${ci.ciId}'s machine`,
    tool: 'lookup_host',
    kind: 'read',
    args: { serial: ref(ciPath(ci, 'serial')) },
  };
}

/**
 * Retire a CI whose machine discovery has not reached for 30 days — only with positive
 * evidence: sightings that stop 30+ days ago. No sightings at all prove nothing (the machine
 * may never have been scanned), and one within the window means it is still alive. Just
 * before the write a fresh lookup must still show it gone, and the CI unchanged.
 */
export function retireCi(ci: CiAt): OperationInput {
  const sightings = `sightings-${opId(ci.ciId)}`;
  const ciRead = { tool: 'get_ci', args: { ci_id: ci.ciId } };
  const retired: Predicate = { path: 'fresh.status', op: 'eq', value: 'retired' };
  return {
    id: `retire-${opId(ci.ciId)}`,
    description: `Retire ${ci.ciId} if its machine is gone`,
    tool: 'retire_ci',
    kind: 'write',
    args: {
      ci_id: ci.ciId,
      expected_version: ref(ciPath(ci, 'version')),
      reason: `Not reached by discovery for ${RETIRE_AFTER_DAYS}+ days`,
    },
    when: {
      all: [
        { path: ciPath(ci, 'ci_id'), op: 'eq', value: ci.ciId },
        { path: ciPath(ci, 'status'), op: 'eq', value: 'operational' },
        {
          some: {
            path: `${sightings}.sightings`,
            where: { path: 'item.days_ago', op: 'gte', value: RETIRE_AFTER_DAYS },
          },
        },
        { not: seenRecently(`${sightings}.sightings`) },
      ],
    },
    preconditions: [
      {
        description: 'discovery has still not reached the machine',
        read: { tool: 'lookup_host', args: { serial: ref(ciPath(ci, 'serial')) } },
        expect: { not: seenRecently('fresh.sightings') },
      },
      {
        description: 'the CI is operational and unchanged since it was listed',
        read: ciRead,
        expect: {
          all: [
            { path: 'fresh.version', op: 'eq', value: ref('args.expected_version') },
            { path: 'fresh.status', op: 'eq', value: 'operational' },
          ],
        },
      },
    ],
    postconditions: [{ description: 'the CI is retired', read: ciRead, expect: retired }],
    idempotent: true,
    reconcile: { read: ciRead, found: retired },
  };
}

const reports = { tool: 'list_sync_reports', args: { sync_id: ref('input.sync_id') } };
const reportPosted: Predicate = {
  some: {
    path: 'fresh.reports',
    where: { path: 'item.sync_id', op: 'eq', value: ref('input.sync_id') },
  },
};

/**
 * Post the sync report. Reports have no keys: an unknown outcome is settled by listing the
 * reports for the sync before posting again.
 */
export const postReport: OperationInput = {
  id: 'report',
  description: 'Post the sync report to the CMDB change log',
  tool: 'post_sync_report',
  kind: 'write',
  args: {
    sync_id: ref('input.sync_id'),
    scan_id: ref('discovered-1.scan_id'),
    summary: REPORT_SUMMARY,
  },
  postconditions: [
    {
      description: 'exactly one report stands for the sync',
      read: reports,
      expect: { path: 'fresh.reports.length', op: 'eq', value: 1 },
    },
  ],
  idempotent: false,
  reconcile: { read: reports, found: reportPosted },
};

/** The run may finish only once its report is in the change log. */
export const reportInChangeLog: BlueprintInput['completion'] = [
  { description: 'the sync report is in the CMDB change log', read: reports, expect: reportPosted },
];

/**
 * The whole nightly sync for a plan, in the order an engineer would do it: read both
 * inventories; register and link each new host; correct each drifted CI; look up each CI the
 * scan no longer sees and retire those that are gone; post the report.
 */
export function syncOperations(plan: SyncPlan): OperationInput[] {
  const pages = Math.max(
    1,
    ...plan.newHosts.map((h) => h.page),
    ...plan.drifted.map((d) => d.host.page),
  );
  return [
    ...Array.from({ length: pages }, (_, i) => readScanPage(i + 1)),
    readCmdb,
    ...plan.newHosts.flatMap((h) => [createCi(h), linkCi(h)]),
    ...plan.drifted.flatMap((d) => [readCi(d.ci.ciId), updateCi(d)]),
    ...plan.unseen.flatMap((c) => [readSightings(c), retireCi(c)]),
    postReport,
  ];
}
