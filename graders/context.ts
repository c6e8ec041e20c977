import {
  canonicalJson,
  faultSchema,
  requestKey,
  type AgentRecords,
  type Fault,
  type FiredFault,
  type Scenario,
  type Trajectory,
  type WireCallRecord,
  type WorldTool,
} from '../scenarios/grading.js';

/** The white-box records graders read: each part the agent exposes in the shape they read. */
export type WhiteBoxRecords = Partial<AgentRecords>;

/** A fault of the plan with what became of it. */
export interface PlannedFault {
  readonly index: number;
  readonly fault: Fault;
  /** Every firing (probability triggers may fire more than once); empty when it never fired. */
  readonly fired: readonly FiredFault[];
  /** Why it cannot reach this run's agent, when it cannot: never fired, never judged. */
  readonly notApplicable?: string;
}

/**
 * Facts every grader derives the same way from (scenario, trajectory), computed once. Nothing
 * here reads the agent's name: graders judge what happened, not who did it.
 */
export interface GradeContext {
  readonly scenario: Scenario;
  readonly trajectory: Trajectory;
  /**
   * The calls the agent made, in the order the world saw them. A request the network delivered
   * twice (`echoOf`) is left out: its effects are still in the ledger, where integrity sees them.
   */
  readonly calls: readonly WireCallRecord[];
  /**
   * The agent's white-box records, part by part: a part it does not expose, or exposes in
   * another shape, is absent; null when it exposes none graders can read.
   */
  readonly records: WhiteBoxRecords | null;
  readonly faults: readonly PlannedFault[];
  /** Ledger entries applied under this run's credential. */
  readonly runEffects: Trajectory['ledger'];
  tool(name: string): WorldTool | undefined;
  isWrite(call: WireCallRecord): boolean;
  /**
   * Position of a call in {@link calls} (in the order the world saw them); an echo's is the
   * position of the call it repeats, -1 for an unknown id.
   */
  position(callId: string): number;
  /**
   * Calls that repeat the previous identical request after it did not come back ok: what the
   * contract's retry budget counts, seen from the wire.
   */
  readonly retries: ReadonlySet<string>;
  /** The fired fault that made the ledger effect `seq` (a colleague's change, say), if one did. */
  causeOf(seq: number): FiredFault | undefined;
  /**
   * Whether the run's world held writes instead of executing them (a live world in shadow
   * mode): every write it admitted is a proposal, and no write reached the live server.
   */
  readonly holdsWrites: boolean;
  /** Call ids of the held writes (the trajectory's proposals). */
  readonly held: ReadonlySet<string>;
}

/** Anything the trajectory places in time: a call, a fired fault, an operator action, an effect. */
export interface Moment {
  readonly at: number;
  /** Its place in the run's one order of events; absent in trajectories recorded before it. */
  readonly order?: number | undefined;
}

/**
 * Whether `a` came before `b` in the run. By the run's one order of events when both carry it
 * — many things happen in one virtual millisecond, so time alone cannot tell — else by time,
 * where a tie stays unordered and counts as not before.
 */
export function happenedBefore(a: Moment, b: Moment): boolean {
  if (a.order !== undefined && b.order !== undefined) return a.order < b.order;
  return a.at < b.at;
}

/** Two calls are the same request when tool and (canonical) arguments are equal. */
export function callKey(call: Pick<WireCallRecord, 'tool' | 'args'>): string {
  return requestKey(call.tool, call.args);
}

/** True when every field of `subset` equals the same field of `args`. */
export function argsInclude(
  args: Readonly<Record<string, unknown>>,
  subset: Readonly<Record<string, unknown>>,
): boolean {
  return Object.entries(subset).every(
    ([k, v]) => k in args && canonicalJson(args[k]) === canonicalJson(v),
  );
}

export function createContext(scenario: Scenario, trajectory: Trajectory): GradeContext {
  const tools = new Map(trajectory.tools.map((t) => [t.name, t]));
  const calls = trajectory.calls.filter((c) => c.echoOf === undefined);
  const positions = new Map(calls.map((c, i) => [c.callId, i]));
  // An echo's effects belong to the request it repeats.
  for (const c of trajectory.calls)
    if (c.echoOf !== undefined) positions.set(c.callId, positions.get(c.echoOf) ?? -1);
  const planned = trajectory.faults.planned.map((raw) => faultSchema.parse(raw));
  const retries = new Set<string>();
  const last = new Map<string, WireCallRecord>();
  for (const call of calls) {
    const key = callKey(call);
    const previous = last.get(key);
    if (previous && previous.outcome.type !== 'ok') retries.add(call.callId);
    last.set(key, call);
  }
  let causes: Map<number, FiredFault> | undefined;
  return {
    scenario,
    trajectory,
    calls,
    retries,
    causeOf(seq) {
      causes ??= new Map(
        trajectory.faults.fired.flatMap((f) => (f.effects ?? []).map((e) => [e, f] as const)),
      );
      return causes.get(seq);
    },
    records: asRecords(trajectory.agentRecords),
    faults: planned.map((fault, index) => {
      const skipped = trajectory.faults.notApplicable?.find((f) => f.index === index);
      return {
        index,
        fault,
        fired: trajectory.faults.fired.filter((f) => f.index === index),
        ...(skipped ? { notApplicable: skipped.reason } : {}),
      };
    }),
    runEffects: trajectory.ledger.filter((e) => e.runId === trajectory.runId),
    holdsWrites: trajectory.proposals !== undefined,
    held: new Set((trajectory.proposals ?? []).map((p) => p.callId)),
    tool: (name) => tools.get(name),
    isWrite: (call) => tools.get(call.tool)?.kind === 'write',
    position: (callId) => positions.get(callId) ?? -1,
  };
}

/**
 * The white-box records, part by part, each kept only when it has the shape graders read (an
 * array of records with the fields they look at); a part missing or in another shape is left
 * out, and the checks that need it are skipped. Null when no part is left.
 */
type Part<K extends keyof AgentRecords> = NonNullable<AgentRecords[K]>;

function asRecords(value: unknown): WhiteBoxRecords | null {
  if (!isObject(value)) return null;
  const parts: WhiteBoxRecords = {};
  if (everyHas(value.events, EVENT_FIELDS)) parts.events = value.events as Part<'events'>;
  if (everyHas(value.actions, ACTION_FIELDS)) parts.actions = value.actions as Part<'actions'>;
  if (everyHas(value.checkpoints, { boundary: 'string' }))
    parts.checkpoints = value.checkpoints as Part<'checkpoints'>;
  if (everyHas(value.evidence, { id: 'string', operationId: 'string?' }))
    parts.evidence = value.evidence as Part<'evidence'>;
  return Object.keys(parts).length === 0 ? null : parts;
}

/** What a field must hold: a type, `?` where null is allowed too; `array` for a list. */
type FieldShape = 'string' | 'string?' | 'number' | 'array' | 'object';

const EVENT_FIELDS: Readonly<Record<string, FieldShape>> = {
  seq: 'number',
  type: 'string',
  fromState: 'string?',
  toState: 'string?',
  operationId: 'string?',
  actionId: 'string?',
  evidenceRefs: 'array',
};
const ACTION_FIELDS: Readonly<Record<string, FieldShape>> = {
  id: 'string',
  operationId: 'string',
  tool: 'string',
  kind: 'string',
  status: 'string',
  args: 'object',
  idempotencyKey: 'string?',
};

function everyHas(list: unknown, fields: Readonly<Record<string, FieldShape>>): boolean {
  return (
    Array.isArray(list) &&
    list.every(
      (item) =>
        isObject(item) &&
        Object.entries(fields).every(([field, shape]) => holds(item[field], shape)),
    )
  );
}

function holds(value: unknown, shape: FieldShape): boolean {
  switch (shape) {
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === null || typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Index of the first call at or after virtual time `at` (the call count when there is none). */
export function firstAt(ctx: GradeContext, at: number): number {
  const i = ctx.calls.findIndex((c) => c.at >= at);
  return i < 0 ? ctx.calls.length : i;
}
