import { z } from 'zod';
import { HtmlReportError } from './html-report-error.js';

/**
 * The parts of a trajectory file the HTML report shows, narrowed from parsed JSON. Reports read
 * results, never the engine, so this is the report's own structural view of the file
 * (scenarios/trajectory.ts owns the format): fields it does not show are ignored, and the
 * agent's own records — whose shape belongs to each agent — are shown only when they look like
 * the reference runtime's (events, actions, evidence), and otherwise left out with a note.
 */

const text = z.string();
/** A place in the run's one order of events; absent in trajectories recorded before it. */
const order = z.number().optional();
const nullableText = z.string().nullable().optional().default(null);

const callSchema = z.object({
  callId: text,
  incarnation: z.number().int().nonnegative(),
  tool: text,
  args: z.record(z.string(), z.unknown()),
  idempotencyKey: nullableText,
  approvalToken: nullableText,
  at: z.number(),
  order,
  fault: nullableText,
  effects: z.array(z.number().int()),
  reply: text,
  outcome: z.discriminatedUnion('type', [
    z.object({ type: z.literal('ok') }),
    z.object({ type: z.literal('fail'), class: text }),
    z.object({ type: z.literal('info'), reason: text }),
  ]),
});
export type CallView = z.infer<typeof callSchema>;

const effectSchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  order,
  runId: nullableText,
  tool: text,
  requestId: nullableText,
  idempotencyKey: nullableText,
  identity: text,
  effect: z.unknown(),
  approvalToken: nullableText,
  compensates: z.number().int().nullable().optional().default(null),
});
export type EffectView = z.infer<typeof effectSchema>;

const firedFaultSchema = z.object({
  index: z.number().int().nonnegative(),
  kind: text,
  at: z.number(),
  order,
  callId: nullableText,
  detail: text,
});
export type FiredFaultView = z.infer<typeof firedFaultSchema>;

const crashSchema = z.object({
  probe: text,
  at: z.number(),
  order,
  mode: text,
  operation: nullableText,
  pid: z.number().int().nullable().optional().default(null),
  signal: nullableText,
  resumedPid: z.number().int().nullable().optional().default(null),
});
export type CrashView = z.infer<typeof crashSchema>;

const operatorSchema = z.object({ at: z.number(), order, kind: text, detail: text });
export type OperatorView = z.infer<typeof operatorSchema>;

const approvalSchema = z.object({
  token: text,
  tool: text,
  identity: text,
  approver: text,
  grantedAt: z.number(),
  consumedAt: z.number().nullable(),
  consumedBy: nullableText,
});
export type ApprovalView = z.infer<typeof approvalSchema>;

const trajectorySchema = z.object({
  scenarioId: text,
  faultPlanId: text,
  calls: z.array(callSchema),
  ledger: z.array(effectSchema),
  faults: z.object({ planned: z.array(z.unknown()), fired: z.array(firedFaultSchema) }),
  crashes: z.array(crashSchema),
  operator: z.array(operatorSchema),
  approvals: z.array(approvalSchema),
  agentRecords: z.unknown(),
  expected: z.object({ state: text, stopReason: nullableText, world: z.unknown() }).optional(),
  outcome: z.object({
    state: text,
    stopReason: nullableText,
    detail: nullableText,
    hung: z.boolean(),
  }),
  world: z.object({ start: z.unknown(), end: z.unknown() }),
  times: z.object({ virtualMs: z.number() }),
  /** Writes a live world held in shadow mode (absent: not a live shadow run). */
  proposals: z
    .array(
      z.object({
        n: z.number().int(),
        callId: text,
        tool: text,
        args: z.record(z.string(), z.unknown()),
        at: z.number(),
        evidence: z.array(text),
      }),
    )
    .optional(),
});

const agentEventSchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  order,
  type: text,
  fromState: nullableText,
  toState: nullableText,
  reason: nullableText,
  operationId: nullableText,
  actionId: nullableText,
  requestId: nullableText,
  idempotencyKey: nullableText,
  resultClass: nullableText,
  policyRule: nullableText,
  evidenceRefs: z.array(text).optional().default([]),
  data: z.unknown(),
});
export type AgentEventView = z.infer<typeof agentEventSchema>;

const evidenceSchema = z.object({
  id: text,
  tool: text,
  trust: text,
  content: z.unknown(),
});
export type EvidenceView = z.infer<typeof evidenceSchema>;

const agentRecordsSchema = z.object({
  events: z.array(agentEventSchema),
  evidence: z.array(evidenceSchema).optional().default([]),
});

/** The agent's records as far as the report understands them. */
export type AgentRecordsView =
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown-shape' }
  | {
      readonly kind: 'events';
      readonly events: readonly AgentEventView[];
      readonly evidence: ReadonlyMap<string, EvidenceView>;
    };

export type TrajectoryView = Omit<z.infer<typeof trajectorySchema>, 'agentRecords'> & {
  readonly agentRecords: AgentRecordsView;
};

/**
 * Narrows one run's parsed trajectory JSON to what the report shows. `null` and `undefined`
 * mean the run has no trajectory (the page says so); anything else must look like a trajectory,
 * or an {@link HtmlReportError} names the run and the first field that does not.
 */
export function trajectoryView(runId: string, raw: unknown): TrajectoryView | null {
  if (raw === null || raw === undefined) return null;
  const parsed = trajectorySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') || '(trajectory)';
    throw new HtmlReportError(
      'invalid-trajectory',
      `trajectory of run ${runId}: ${path}: ${issue?.message ?? 'invalid'}`,
      { runId, path },
    );
  }
  const { agentRecords, ...rest } = parsed.data;
  return { ...rest, agentRecords: agentRecordsView(agentRecords) };
}

function agentRecordsView(raw: unknown): AgentRecordsView {
  if (raw === null || raw === undefined) return { kind: 'none' };
  const parsed = agentRecordsSchema.safeParse(raw);
  if (!parsed.success) return { kind: 'unknown-shape' };
  return {
    kind: 'events',
    events: parsed.data.events,
    evidence: new Map(parsed.data.evidence.map((e) => [e.id, e])),
  };
}
