import type { EventRef } from '../../graders/grade.js';
import type {
  AgentEventView,
  ApprovalView,
  CallView,
  CrashView,
  EffectView,
  FiredFaultView,
  OperatorView,
  TrajectoryView,
} from './trajectory-view.js';

/**
 * One run's trajectory as a timeline: plain data, ordered by virtual time, each event with a
 * stable anchor id that findings link to. Two lanes share the time axis: what the harness saw at
 * the world boundary (calls, injected faults, effects, approvals, operator actions, crashes) and
 * what the agent recorded (its events and state transitions). Within one instant the run's one
 * order of events (each event's `order`, numbered by the virtual clock) interleaves the lanes:
 * an instant is cut into consecutive blocks, each holding one lane's stretch. Where the agent
 * kept no order (an agent in a child process, an older trajectory), nothing says whether its
 * event at t came before or after a call at the same t, so the lanes of that instant stay side
 * by side in one block: the report does not pretend to know.
 */

export type TimelineEntry =
  | { readonly kind: 'call'; readonly id: string; readonly at: number; readonly call: CallView }
  | {
      readonly kind: 'fault';
      readonly id: string;
      readonly at: number;
      readonly fault: FiredFaultView;
      readonly planned: unknown;
    }
  | {
      readonly kind: 'effect';
      readonly id: string;
      readonly at: number;
      readonly effect: EffectView;
    }
  | {
      readonly kind: 'approval';
      readonly id: string;
      readonly at: number;
      readonly approval: ApprovalView;
    }
  | {
      readonly kind: 'operator';
      readonly id: string;
      readonly at: number;
      readonly index: number;
      readonly entry: OperatorView;
    }
  | {
      readonly kind: 'crash';
      readonly id: string;
      readonly at: number;
      readonly index: number;
      readonly crash: CrashView;
    }
  | {
      readonly kind: 'agent-event';
      readonly id: string;
      readonly at: number;
      readonly event: AgentEventView;
    };

/** Everything that happened at one virtual instant in one incarnation of the agent. */
export interface TimelineBlock {
  readonly at: number;
  readonly incarnation: number;
  readonly world: readonly TimelineEntry[];
  readonly agent: readonly TimelineEntry[];
}

export interface Timeline {
  readonly blocks: readonly TimelineBlock[];
  /** Planned faults that never fired (findings may still cite them). */
  readonly unfired: readonly {
    readonly id: string;
    readonly index: number;
    readonly planned: unknown;
  }[];
  /** Anchor id of the run's outcome. */
  readonly outcomeId: string;
}

/** A finding's reference as results store it, narrowed: the graders' own reference type. */
export type Ref = EventRef;

/** Narrows a stored reference; `null` for a kind this report does not know. */
export function narrowRef(raw: Readonly<Record<string, unknown>>): Ref | null {
  const { kind } = raw;
  const str = (key: string): string | null => {
    const value = raw[key];
    return typeof value === 'string' ? value : null;
  };
  const int = (key: string): number | null => {
    const value = raw[key];
    return typeof value === 'number' && Number.isInteger(value) ? value : null;
  };
  switch (kind) {
    case 'call': {
      const callId = str('callId');
      return callId === null ? null : { kind, callId };
    }
    case 'approval': {
      const token = str('token');
      return token === null ? null : { kind, token };
    }
    case 'effect':
    case 'agent-event': {
      const seq = int('seq');
      return seq === null ? null : { kind, seq };
    }
    case 'fault':
    case 'crash':
    case 'operator': {
      const index = int('index');
      return index === null ? null : { kind, index };
    }
    case 'outcome':
      return { kind };
    default:
      return null;
  }
}

/**
 * A string as an id fragment: letters, digits and `-` stay, `/` becomes `_` (so call `0/4` is
 * `0_4`), anything else becomes `.<hex>.` — injective, and safe in ids, hashes and selectors.
 */
function fragment(value: string): string {
  let out = '';
  for (const ch of value) {
    if (/[A-Za-z0-9-]/.test(ch)) out += ch;
    else if (ch === '/') out += '_';
    else out += `.${(ch.codePointAt(0) ?? 0).toString(16)}.`;
  }
  return out;
}

/** The anchor id (within a run) of the event a reference names. */
export function refId(ref: Ref): string {
  switch (ref.kind) {
    case 'call':
      return `ev-call-${fragment(ref.callId)}`;
    case 'approval':
      return `ev-approval-${fragment(ref.token)}`;
    case 'effect':
      return `ev-effect-${ref.seq}`;
    case 'agent-event':
      return `ev-agent-${ref.seq}`;
    case 'fault':
    case 'crash':
    case 'operator':
      return `ev-${ref.kind}-${ref.index}`;
    case 'outcome':
      return 'ev-outcome';
  }
}

/**
 * Where a reference points in this run: the anchor (one of `anchors`, see {@link anchorIds}) of
 * the event it names, or null when the timeline has no such event (the page shows it as text).
 */
export function resolveRef(
  ref: Ref,
  anchors: ReadonlySet<string>,
  calls: readonly CallView[],
): string | null {
  const id = refId(ref);
  if (anchors.has(id)) return id;
  // An approval granted before the run (by the scene's setup) has no grant in the timeline:
  // point at the first call that presented it instead.
  if (ref.kind === 'approval') {
    const call = calls.find((c) => c.approvalToken === ref.token);
    if (call) return refId({ kind: 'call', callId: call.callId });
  }
  return null;
}

/** Every anchor id the timeline renders. */
export function anchorIds(timeline: Timeline): ReadonlySet<string> {
  return new Set([
    ...timeline.blocks.flatMap((b) => [...b.world, ...b.agent].map((e) => e.id)),
    ...timeline.unfired.map((u) => u.id),
    timeline.outcomeId,
  ]);
}

/**
 * Builds the timeline. The world lane keeps the order the harness saw things in: each call,
 * then the faults injected on it and the effects it applied; an approval just before the call
 * that used it; a crash (after the crash fault that caused it) between the last call of its
 * incarnation and the first of the next; the operator's grant just before the approval it
 * granted. An effect no call of the run applied (the scenario's
 * setup, a colleague's change) goes where the ledger's order puts it — after the fault that
 * made it when there is one. Operator actions and anything else not tied to a call go after
 * what happened at or before their time. The agent lane is the agent's events in order; a
 * `run.resumed` event starts the next incarnation. Both lanes are then (stably) ordered by
 * virtual time and cut into blocks per instant and incarnation.
 */
export function buildTimeline(trajectory: TrajectoryView): Timeline {
  type Placed = { entry: TimelineEntry; incarnation: number | null };
  const world: Placed[] = [];
  const placed = new Set<TimelineEntry>();
  const place = (entry: TimelineEntry, incarnation: number | null): void => {
    world.push({ entry, incarnation });
    placed.add(entry);
  };

  // Fault ids follow the order faults fired in: a fault's first firing is `ev-fault-<index>`.
  const firings = new Map<number, number>();
  const faults = trajectory.faults.fired.map((fault): TimelineEntry & { kind: 'fault' } => {
    const n = (firings.get(fault.index) ?? 0) + 1;
    firings.set(fault.index, n);
    return {
      kind: 'fault',
      id: n === 1 ? `ev-fault-${fault.index}` : `ev-fault-${fault.index}-n${n}`,
      at: fault.at,
      fault,
      planned: trajectory.faults.planned[fault.index] ?? null,
    };
  });
  const effects = trajectory.ledger.map((effect): TimelineEntry & { kind: 'effect' } => ({
    kind: 'effect',
    id: `ev-effect-${effect.seq}`,
    at: effect.at,
    effect,
  }));
  const approvals = trajectory.approvals.map((approval): TimelineEntry & { kind: 'approval' } => ({
    kind: 'approval',
    id: refId({ kind: 'approval', token: approval.token }),
    at: approval.grantedAt,
    approval,
  }));
  const operator = trajectory.operator.map((entry, index): TimelineEntry => ({
    kind: 'operator',
    id: `ev-operator-${index}`,
    at: entry.at,
    index,
    entry,
  }));
  // The k-th crash fault not injected on a call is what caused crash k.
  const crashFaults = faults.filter((f) => f.fault.callId === null && f.fault.kind === 'crash');
  const placeCrash = (index: number): void => {
    const crash = trajectory.crashes[index];
    if (!crash) return;
    const cause = crashFaults[index];
    if (cause) place(cause, index);
    place({ kind: 'crash', id: `ev-crash-${index}`, at: crash.at, index, crash }, index);
  };

  let crashesPlaced = 0;
  for (const call of trajectory.calls) {
    // Crash k ends incarnation k: it goes before the first call made after it.
    for (; crashesPlaced < Math.min(call.incarnation, trajectory.crashes.length); crashesPlaced++)
      placeCrash(crashesPlaced);
    // An approval is granted just before the call that uses it (the world may not mark every
    // approval consumed, so presenting its token counts too).
    for (const a of approvals) {
      const used = a.approval.consumedBy === call.callId || a.approval.token === call.approvalToken;
      if (used && !placed.has(a)) place(a, call.incarnation);
    }
    place(
      { kind: 'call', id: refId({ kind: 'call', callId: call.callId }), at: call.at, call },
      call.incarnation,
    );
    for (const f of faults)
      if (f.fault.callId === call.callId && !placed.has(f)) place(f, call.incarnation);
    for (const e of effects)
      if (e.effect.requestId === call.callId && !placed.has(e)) place(e, call.incarnation);
  }
  for (; crashesPlaced < trajectory.crashes.length; crashesPlaced++) placeCrash(crashesPlaced);

  for (const e of effects.filter((x) => !placed.has(x))) {
    const seqOf = (p: Placed): number | null =>
      p.entry.kind === 'effect' ? p.entry.effect.seq : null;
    const after = world.findLastIndex((p) => (seqOf(p) ?? Infinity) < e.effect.seq);
    const before = world.findIndex((p) => (seqOf(p) ?? -Infinity) > e.effect.seq);
    const end = before === -1 ? world.length : before;
    const cause = world.findIndex((p, i) => i > after && i < end && p.entry.kind === 'fault');
    world.splice(cause === -1 ? after + 1 : cause + 1, 0, { entry: e, incarnation: null });
    placed.add(e);
  }

  // The operator's log has one `approval.granted` line per approval granted, in order: each
  // goes just before its approval's grant.
  const grants = operator.filter(
    (o) => o.kind === 'operator' && o.entry.kind === 'approval.granted',
  );
  // An approval has no order of its own: it was granted the moment the operator's grant was.
  const grantOrder = new Map<TimelineEntry, number>();
  if (grants.length === approvals.length) {
    grants.forEach((grant, i) => {
      const approval = approvals[i];
      const granted = orderOf(grant);
      if (approval && granted !== undefined) grantOrder.set(approval, granted);
      const at = world.findIndex((p) => p.entry === approval);
      if (at === -1) return;
      world.splice(at, 0, { entry: grant, incarnation: null });
      placed.add(grant);
    });
  }

  // Anything else goes where the run's order puts it — before the first entry that came after
  // it — or, without an order, after what happened at or before its time.
  const loose = [...approvals, ...faults, ...operator].filter((x) => !placed.has(x));
  for (const entry of byTime(loose, (e) => e.at)) {
    const own = orderOf(entry);
    const next =
      own === undefined
        ? -1
        : world.findIndex((p) => p.entry.at >= entry.at && (orderOf(p.entry) ?? -1) > own);
    const at = next >= 0 ? next : world.findLastIndex((p) => p.entry.at <= entry.at) + 1;
    world.splice(at, 0, { entry, incarnation: null });
  }

  // Entries not tied to a call belong to the incarnation running when they happened.
  let running = 0;
  const worldLane = byTime(
    world.map(({ entry, incarnation }) => {
      if (entry.kind === 'crash') {
        running = entry.index + 1;
        return { entry, incarnation: entry.index };
      }
      if (incarnation !== null) running = incarnation;
      return { entry, incarnation: incarnation ?? running };
    }),
    (x) => x.entry.at,
  );

  const records = trajectory.agentRecords;
  let resumed = 0;
  const agentLane = byTime(
    (records.kind === 'events' ? records.events : []).map((event) => {
      if (event.type === 'run.resumed') resumed++;
      const entry: TimelineEntry = {
        kind: 'agent-event',
        id: `ev-agent-${event.seq}`,
        at: event.at,
        event,
      };
      return { entry, incarnation: resumed };
    }),
    (x) => x.entry.at,
  );

  const keys = new Map<string, { at: number; incarnation: number }>();
  for (const { entry, incarnation } of [...worldLane, ...agentLane]) {
    keys.set(`${entry.at}|${incarnation}`, { at: entry.at, incarnation });
  }
  const blocks = [...keys.values()]
    .sort((a, b) => a.at - b.at || a.incarnation - b.incarnation)
    .flatMap(({ at, incarnation }) => {
      const pick = (lane: typeof worldLane): TimelineEntry[] =>
        lane.filter((x) => x.entry.at === at && x.incarnation === incarnation).map((x) => x.entry);
      return interleave(at, incarnation, inOrder(pick(worldLane), grantOrder), pick(agentLane));
    });

  const unfired = trajectory.faults.planned
    .map((planned, index) => ({ id: `ev-fault-${index}`, index, planned }))
    .filter((u) => !firings.has(u.index));
  return { blocks, unfired, outcomeId: 'ev-outcome' };
}

/** An entry's place in the run's one order of events, when the trajectory kept it. */
export function orderOf(entry: TimelineEntry): number | undefined {
  switch (entry.kind) {
    case 'call':
      return entry.call.order;
    case 'fault':
      return entry.fault.order;
    case 'effect':
      return entry.effect.order;
    case 'operator':
      return entry.entry.order;
    case 'crash':
      return entry.crash.order;
    case 'agent-event':
      return entry.event.order;
    case 'approval':
      // Placed by the call that used it, just before that call.
      return undefined;
  }
}

/**
 * One instant's world lane in the run's order of events, where it was kept: an approval sorts
 * just after its grant (`grantOrder`), anything else without an order with the next entry that
 * has one. A lane with no orders at all keeps the order it was built in.
 */
function inOrder(
  world: readonly TimelineEntry[],
  grantOrder: ReadonlyMap<TimelineEntry, number>,
): TimelineEntry[] {
  const keys = new Map<TimelineEntry, number>();
  let next = Infinity;
  for (let i = world.length - 1; i >= 0; i--) {
    const entry = world[i];
    if (!entry) continue;
    const granted = grantOrder.get(entry);
    next = orderOf(entry) ?? (granted === undefined ? next : granted + 0.5);
    keys.set(entry, next);
  }
  return [...world].sort((a, b) => (keys.get(a) ?? Infinity) - (keys.get(b) ?? Infinity));
}

/**
 * One instant of one incarnation as blocks in the run's order: each agent event goes before the
 * first world entry that came after it, and a new block starts wherever the lane changes.
 * Agent events without an order leave the instant as one block, lanes side by side.
 */
function interleave(
  at: number,
  incarnation: number,
  world: readonly TimelineEntry[],
  agent: readonly TimelineEntry[],
): TimelineBlock[] {
  if (agent.length === 0 || world.length === 0 || agent.some((e) => orderOf(e) === undefined))
    return [{ at, incarnation, world, agent }];
  // A world entry without an order (an approval) goes with the next one that has one.
  const keys: number[] = [];
  let next = Infinity;
  for (let i = world.length - 1; i >= 0; i--) {
    const entry = world[i];
    next = (entry && orderOf(entry)) ?? next;
    keys[i] = next;
  }
  const blocks: {
    at: number;
    incarnation: number;
    world: TimelineEntry[];
    agent: TimelineEntry[];
  }[] = [];
  const push = (lane: 'world' | 'agent', entry: TimelineEntry): void => {
    const last = blocks.at(-1);
    const other = lane === 'world' ? 'agent' : 'world';
    if (last && last[other].length === 0) last[lane].push(entry);
    else blocks.push({ at, incarnation, world: [], agent: [], [lane]: [entry] });
  };
  let w = 0;
  for (const event of agent) {
    const own = orderOf(event) ?? Infinity;
    for (; w < world.length && (keys[w] ?? Infinity) < own; w++) {
      const entry = world[w];
      if (entry) push('world', entry);
    }
    push('agent', event);
  }
  for (const entry of world.slice(w)) push('world', entry);
  return blocks;
}

/** Ordered by virtual time; `Array.prototype.sort` is stable, so ties keep their order. */
function byTime<T>(items: readonly T[], at: (item: T) => number): T[] {
  return [...items].sort((a, b) => at(a) - at(b));
}
