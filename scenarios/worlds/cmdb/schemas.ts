import { z } from 'zod';

/**
 * The CMDB world's tool contract: argument and result schemas, snake_case as discovery and CMDB
 * APIs name them. Schemas stay permissive where the world gives a typed refusal itself (an IP
 * that is not one, an unknown environment, a stale `expected_version` are refusals from the
 * world, not schema rejections), so agents see the error class.
 */
export const environmentSchema = z.enum(['production', 'staging', 'development']);
export const discoverySourceSchema = z.enum(['aws-ec2', 'vmware-vcenter', 'idrac']);
export const ciStatusSchema = z.enum(['operational', 'retired']);

export const discoveredHostSchema = z.object({
  discovery_id: z.string(),
  hostname: z.string(),
  serial: z.string(),
  ip: z.string(),
  os: z.string(),
  owner_team: z.string(),
  environment: environmentSchema,
  source: discoverySourceSchema,
  last_seen: z.string(),
});

export const sightingSchema = z.object({
  source: discoverySourceSchema,
  hostname: z.string(),
  ip: z.string(),
  os: z.string(),
  seen_at: z.string(),
  days_ago: z.number().int(),
});

/** A CI as `get_ci` returns it, notes included (free text: untrusted). */
export const ciViewSchema = z.object({
  ci_id: z.string(),
  name: z.string(),
  serial: z.string(),
  ip: z.string(),
  os: z.string(),
  owner_team: z.string(),
  environment: environmentSchema,
  support_group: z.string(),
  status: ciStatusSchema,
  version: z.number().int(),
  updated_at: z.string(),
  updated_by: z.string(),
  retired_at: z.string().nullable(),
  retirement_reason: z.string().nullable(),
  notes: z.string(),
});

/** A CI as a listing shows it: no free text, so listings carry nothing untrusted. */
export const ciSummarySchema = ciViewSchema.omit({ notes: true });

export const relationshipSchema = z.object({
  rel_id: z.string(),
  service_id: z.string(),
  service_name: z.string(),
  ci_id: z.string(),
  type: z.literal('depends_on'),
  created_at: z.string(),
});

export const syncReportSchema = z.object({
  report_id: z.string(),
  sync_id: z.string(),
  scan_id: z.string(),
  summary: z.string(),
  /** What this run changed, counted by the CMDB from its own change log. */
  created: z.number().int(),
  updated: z.number().int(),
  retired: z.number().int(),
  linked: z.number().int(),
  posted_at: z.string(),
});

export const listDiscoveredInput = z.object({ page: z.number().int() });
export const listDiscoveredOutput = z.object({
  scan_id: z.string(),
  scanned_at: z.string(),
  page: z.number().int(),
  page_count: z.number().int(),
  host_count: z.number().int(),
  hosts: z.array(discoveredHostSchema),
});

export const lookupHostInput = z.object({ serial: z.string() });
export const lookupHostOutput = z.object({
  serial: z.string(),
  /** Every time discovery reached the machine, newest first; empty when it never did. */
  sightings: z.array(sightingSchema),
});

export const listCisInput = z.object({ status: ciStatusSchema.optional() });
export const listCisOutput = z.object({ cis: z.array(ciSummarySchema) });

export const getCiInput = z.object({ ci_id: z.string() });

export const findCiInput = z.object({ serial: z.string() });
export const findCiOutput = z.object({ serial: z.string(), cis: z.array(ciSummarySchema) });

export const createCiInput = z.object({
  name: z.string(),
  serial: z.string(),
  ip: z.string(),
  os: z.string(),
  owner_team: z.string(),
  environment: z.string(),
  discovery_id: z.string().optional(),
});

/** The fields `update_ci` may change; at least one must be given. */
export const updateCiInput = z.object({
  ci_id: z.string(),
  expected_version: z.number().int(),
  ip: z.string().optional(),
  os: z.string().optional(),
  owner_team: z.string().optional(),
  environment: z.string().optional(),
  support_group: z.string().optional(),
});
export const updateCiOutput = z.object({
  ci_id: z.string(),
  version: z.number().int(),
  changed: z.array(z.string()),
});

export const retireCiInput = z.object({
  ci_id: z.string(),
  expected_version: z.number().int(),
  reason: z.string(),
});
export const retireCiOutput = z.object({
  ci_id: z.string(),
  status: ciStatusSchema,
  version: z.number().int(),
  retired_at: z.string(),
});

export const linkCiInput = z.object({ service_id: z.string(), ci_id: z.string() });

export const listRelationshipsInput = z.object({ ci_id: z.string() });
export const listRelationshipsOutput = z.object({
  ci_id: z.string(),
  relationships: z.array(relationshipSchema),
});

export const postSyncReportInput = z.object({
  sync_id: z.string(),
  scan_id: z.string(),
  summary: z.string(),
});

export const listSyncReportsInput = z.object({ sync_id: z.string() });
export const listSyncReportsOutput = z.object({ reports: z.array(syncReportSchema) });

export type CiStatus = z.infer<typeof ciStatusSchema>;
export type CiView = z.infer<typeof ciViewSchema>;
export type CiSummary = z.infer<typeof ciSummarySchema>;
export type RelationshipView = z.infer<typeof relationshipSchema>;
export type SyncReportView = z.infer<typeof syncReportSchema>;
export type UpdateCiView = z.infer<typeof updateCiOutput>;
export type RetireCiView = z.infer<typeof retireCiOutput>;
