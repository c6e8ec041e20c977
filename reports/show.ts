import { z } from 'zod';
import { DIMENSIONS } from '../graders/grade.js';
import { formatDuration } from './duration.js';
import { gradeOf, runPassed } from './graded.js';
import {
  formatLatency,
  formatTokens,
  formatUsd,
  hadModel,
  modelText,
  usageOf,
  usageText,
} from './model-usage.js';
import { messageView, readTranscript, type MessagePart } from './model-transcript.js';
import { describeFaultNotApplicable } from './not-applicable.js';
import { printable } from './printable.js';
import type { RunResult } from './results.js';

/** The finding a replay that left its recorded path carries (the recorded world's). */
const REPLAY_DIVERGENCE = 'replay-divergence';

/**
 * `faultline show`: one run as a terminal timeline. The trajectory comes in as parsed JSON and
 * is narrowed here, entry by entry, to what the timeline shows (reports read results, never the
 * engine's types), so a file from another version still shows whatever of it can be read.
 *
 * The sources of a trajectory — the agent's events, the wire calls, fired faults, crashes,
 * operator entries, ledger effects — each keep their own order, but nothing records the order
 * between two entries of different sources at the same virtual instant. The timeline is
 * ordered by virtual time and, within an instant, stitched by what links the sources: an
 * agent event carrying a request id answers the wire call before it, a crash falls between the
 * calls of one incarnation and the next, a fault and the effects a call applied follow the
 * call, and an operator entry precedes the agent event that took its decision.
 */

const text = z.string();
const nullableText = z.string().nullable().catch(null);
const nullableInt = z.number().int().nullable().catch(null);

const callSchema = z.object({
  callId: text,
  incarnation: z.number().int().nonnegative().catch(0),
  tool: text,
  args: z.record(z.string(), z.unknown()).catch({}),
  idempotencyKey: nullableText,
  approvalToken: nullableText,
  at: z.number(),
  fault: nullableText,
  effects: z.array(z.number().int()).catch([]),
  reply: text.catch('delivered'),
  outcome: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('ok') }),
      z.object({ type: z.literal('fail'), class: text }),
      z.object({ type: z.literal('info'), reason: text }),
    ])
    .nullable()
    .catch(null),
});
const effectSchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  runId: nullableText,
  tool: text,
  requestId: nullableText,
  identity: text,
  compensates: nullableInt,
});
const faultSchema = z.object({
  index: z.number().int().nonnegative(),
  kind: text,
  at: z.number(),
  callId: nullableText,
  detail: text.catch(''),
});
const crashSchema = z.object({
  probe: text,
  at: z.number(),
  mode: text.catch('in-process'),
  operation: nullableText,
  pid: nullableInt,
  signal: nullableText,
  resumedPid: nullableInt,
});
const operatorSchema = z.object({ at: z.number(), kind: text, detail: text.catch('') });
const approvalSchema = z.object({
  token: text,
  tool: text,
  identity: text,
  approver: text,
  grantedAt: z.number(),
  consumedAt: z.number().nullable().catch(null),
  consumedBy: nullableText,
});
const agentEventSchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  type: text,
  fromState: nullableText,
  toState: nullableText,
  reason: nullableText,
  operationId: nullableText,
  requestId: nullableText,
  resultClass: nullableText,
  operatorAction: nullableText,
});
const outcomeSchema = z.object({
  state: text,
  stopReason: nullableText,
  detail: nullableText,
  hung: z.boolean().catch(false),
});

type Call = z.infer<typeof callSchema>;
type Effect = z.infer<typeof effectSchema>;
type Fault = z.infer<typeof faultSchema>;
type Crash = z.infer<typeof crashSchema>;
type Operator = z.infer<typeof operatorSchema>;
type AgentEvent = z.infer<typeof agentEventSchema>;
export type Approval = z.infer<typeof approvalSchema>;

/** One line of the timeline, as data. `key` is what a finding's ref names (`call:0/6`). */
export type TimelineEntry = { readonly at: number; readonly key: string } & (
  | { readonly kind: 'state'; readonly event: AgentEvent }
  | { readonly kind: 'event'; readonly event: AgentEvent }
  | {
      readonly kind: 'restart';
      readonly incarnation: number;
      readonly event: AgentEvent | null;
      readonly pid: number | null;
    }
  | { readonly kind: 'call'; readonly call: Call }
  | { readonly kind: 'fault'; readonly fault: Fault }
  | { readonly kind: 'effect'; readonly effect: Effect; readonly origin: EffectOrigin }
  | { readonly kind: 'crash'; readonly index: number; readonly crash: Crash }
  | { readonly kind: 'operator'; readonly index: number; readonly entry: Operator }
  | { readonly kind: 'end'; readonly outcome: z.infer<typeof outcomeSchema> }
);

/** `run`: a call of the run applied it; `setup`: the scene before the run; `outside`: anyone else. */
export type EffectOrigin = 'run' | 'setup' | 'outside';

/** What of a trajectory the timeline could read. */
export interface TimelineView {
  readonly entries: readonly TimelineEntry[];
  readonly approvals: readonly Approval[];
  /** Whether the agent exposed records (events); without them there are no state transitions. */
  readonly agentRecords: boolean;
  /** Entries of the file that did not have the expected shape and were left out. */
  readonly unreadable: number;
}

/** The trajectory file is not a trajectory at all. */
export class TrajectoryShapeError extends Error {
  override readonly name = 'TrajectoryShapeError';
}

/**
 * A trajectory as one ordered timeline (see the module comment for how same-instant entries
 * are ordered). Throws {@link TrajectoryShapeError} only when the value is not a faultline
 * trajectory; entries of the wrong shape are skipped and counted in `unreadable`.
 *
 * @example
 * ```ts
 * const view = timeline(JSON.parse(readFileSync(file, 'utf8')));
 * view.entries.filter((e) => e.kind === 'call').length;
 * ```
 */
export function timeline(trajectory: unknown): TimelineView {
  if (!isRecord(trajectory) || trajectory['format'] !== 'faultline-trajectory')
    throw new TrajectoryShapeError('not a faultline trajectory (no format "faultline-trajectory")');
  let unreadable = 0;
  const items = <T>(value: unknown, schema: z.ZodType<T>): T[] => {
    if (!Array.isArray(value)) {
      if (value !== undefined && value !== null) unreadable++;
      return [];
    }
    return value.flatMap((raw: unknown) => {
      const parsed = schema.safeParse(raw);
      if (parsed.success) return [parsed.data];
      unreadable++;
      return [];
    });
  };
  const faults = isRecord(trajectory['faults']) ? trajectory['faults'] : {};
  const records = trajectory['agentRecords'];
  const calls = items(trajectory['calls'], callSchema);
  const ledger = items(trajectory['ledger'], effectSchema);
  const fired = items(faults['fired'], faultSchema);
  const crashes = items(trajectory['crashes'], crashSchema);
  const operator = items(trajectory['operator'], operatorSchema);
  const approvals = items(trajectory['approvals'], approvalSchema);
  const events = isRecord(records)
    ? items(records['events'], agentEventSchema).sort((a, b) => a.seq - b.seq)
    : [];
  const outcome = outcomeSchema.safeParse(trajectory['outcome']);
  if (!outcome.success) unreadable++;
  const times = isRecord(trajectory['times']) ? trajectory['times'] : {};
  const virtualMs = typeof times['virtualMs'] === 'number' ? times['virtualMs'] : null;

  const spine = stitch(events, calls, crashes);

  // What follows or precedes a spine entry, keyed by its key.
  const before = new Map<string, TimelineEntry[]>();
  const after = new Map<string, TimelineEntry[]>();
  const attach = (map: Map<string, TimelineEntry[]>, key: string, entry: TimelineEntry): void => {
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  };
  const loose: TimelineEntry[] = [];

  const callIds = new Set(calls.map((c) => c.callId));
  const faultEntry = (fault: Fault): TimelineEntry => ({
    kind: 'fault',
    at: fault.at,
    key: `fault:${fault.index}`,
    fault,
  });
  const crashFaults = fired.filter((f) => f.kind === 'crash' && !callIds.has(f.callId ?? ''));
  const crashKeys = spine.filter((e) => e.kind === 'crash').map((e) => e.key);
  for (const fault of fired) {
    if (fault.callId !== null && callIds.has(fault.callId))
      attach(after, `call:${fault.callId}`, faultEntry(fault));
    else {
      const crashKey = crashKeys[crashFaults.indexOf(fault)];
      if (fault.kind === 'crash' && crashKey !== undefined)
        attach(before, crashKey, faultEntry(fault));
      else loose.push(faultEntry(fault));
    }
  }

  const setup: TimelineEntry[] = [];
  const appliedBy = new Map<number, string>();
  for (const call of calls) for (const seq of call.effects) appliedBy.set(seq, call.callId);
  for (const effect of ledger) {
    const by =
      appliedBy.get(effect.seq) ??
      (effect.requestId !== null && callIds.has(effect.requestId) ? effect.requestId : undefined);
    const origin: EffectOrigin =
      by !== undefined ? 'run' : effect.runId === 'setup' ? 'setup' : 'outside';
    const entry: TimelineEntry = {
      kind: 'effect',
      at: effect.at,
      key: `effect:${effect.seq}`,
      effect,
      origin,
    };
    if (by !== undefined) attach(after, `call:${by}`, entry);
    else if (origin === 'setup') setup.push(entry);
    else {
      // A change from outside the run (a colleague's edit) is what a fault of the same
      // instant made: show it under that fault.
      const cause = [...fired].reverse().find((f) => f.at === effect.at && f.kind !== 'crash');
      if (cause) attach(after, `fault:${cause.index}`, entry);
      else loose.push(entry);
    }
  }

  const claimed = new Set<number>();
  for (const [index, entry] of operator.entries()) {
    const item: TimelineEntry = {
      kind: 'operator',
      at: entry.at,
      key: `operator:${index}`,
      index,
      entry,
    };
    const took = events.find(
      (e) =>
        !claimed.has(e.seq) &&
        e.at === entry.at &&
        (e.type === entry.kind ||
          e.operatorAction === entry.kind ||
          `operator.${e.operatorAction ?? ''}` === entry.kind),
    );
    if (took) {
      claimed.add(took.seq);
      attach(before, `agent-event:${took.seq}`, item);
    } else loose.push(item);
  }

  // Loose entries go by time, after the spine entries of the same instant.
  const placedLoose = new Map<string, TimelineEntry[]>();
  const tail: TimelineEntry[] = [];
  for (const entry of loose) {
    const next = spine.find((e) => e.at > entry.at);
    if (next) attach(placedLoose, next.key, entry);
    else tail.push(entry);
  }

  const entries: TimelineEntry[] = [...setup];
  const expand = (entry: TimelineEntry): void => {
    for (const b of before.get(entry.key) ?? []) expand(b);
    entries.push(entry);
    for (const a of after.get(entry.key) ?? []) expand(a);
  };
  for (const entry of spine) {
    for (const l of placedLoose.get(entry.key) ?? []) expand(l);
    expand(entry);
  }
  for (const l of tail) expand(l);
  if (outcome.success) {
    const lastAt = entries.reduce((m, e) => Math.max(m, e.at), 0);
    // The run ends at its virtual time, and never before anything in it.
    const at = Math.max(virtualMs ?? 0, lastAt);
    entries.push({ kind: 'end', at, key: 'outcome', outcome: outcome.data });
  }
  return { entries, approvals, agentRecords: isRecord(records), unreadable };
}

/**
 * The agent's events, the wire calls and the crashes in one order: by virtual time; within an
 * instant an event carrying a request id is preceded by the call it answers, and a resume
 * (`run.resumed`) is preceded by the rest of the crashed incarnation's calls and the crash.
 */
function stitch(
  events: readonly AgentEvent[],
  calls: readonly Call[],
  crashes: readonly Crash[],
): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  let crashed = 0;
  /** Shows the crashes up to and including the one that ended incarnation `n`. */
  const crashesThrough = (n: number): void => {
    for (; crashed <= n && crashed < crashes.length; crashed++) {
      const crash = crashes[crashed];
      if (crash)
        out.push({ kind: 'crash', at: crash.at, key: `crash:${crashed}`, index: crashed, crash });
    }
  };
  let incarnation = 0;
  const restart = (at: number, event: AgentEvent | null): void => {
    crashesThrough(incarnation);
    const pid = crashes[incarnation]?.resumedPid ?? null;
    incarnation++;
    const key = event ? `agent-event:${event.seq}` : `restart:${incarnation}`;
    out.push({ kind: 'restart', at, key, incarnation, event, pid });
  };
  const emitCall = (call: Call): void => {
    // A call of a later incarnation is itself the sign of a restart when no event said so.
    while (incarnation < call.incarnation) restart(call.at, null);
    out.push({ kind: 'call', at: call.at, key: `call:${call.callId}`, call });
  };
  let i = 0;
  let j = 0;
  // Calls shown that no event has answered yet (a reply that never came, say).
  let unanswered = 0;
  for (;;) {
    const event = events[i];
    const call = calls[j];
    if (event === undefined && call === undefined) break;
    if (event === undefined || (call !== undefined && call.at < event.at)) {
      if (call) emitCall(call);
      if (event !== undefined) unanswered++;
      j++;
    } else if (event.type === 'run.resumed') {
      // The crashed incarnation's calls all came before its crash.
      for (let c = calls[j]; c !== undefined && c.incarnation <= incarnation; c = calls[++j])
        emitCall(c);
      restart(event.at, event);
      unanswered = 0;
      i++;
    } else {
      const answers = event.requestId !== null;
      if (answers && unanswered > 0) unanswered--;
      else if (answers && call !== undefined && call.at === event.at) {
        emitCall(call);
        j++;
      }
      out.push({
        kind: event.toState !== null ? 'state' : 'event',
        at: event.at,
        key: `agent-event:${event.seq}`,
        event,
      });
      i++;
    }
  }
  crashesThrough(crashes.length);
  return out;
}

const proposalSchema = z.object({
  n: z.number().int(),
  callId: text,
  tool: text,
  args: z.record(z.string(), z.unknown()).catch({}),
  at: z.number(),
  evidence: z.array(text).catch([]),
});

/** The trajectory's held writes; undefined when its world held none (not a live shadow run). */
function proposalsOf(trajectory: unknown): z.infer<typeof proposalSchema>[] | undefined {
  if (!isRecord(trajectory) || !Array.isArray(trajectory['proposals'])) return undefined;
  return trajectory['proposals'].flatMap((p) => {
    const parsed = proposalSchema.safeParse(p);
    return parsed.success ? [parsed.data] : [];
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ShowOptions {
  readonly color: boolean;
  /** Every agent event, not only state transitions and the events findings cite. */
  readonly events?: boolean;
  /** The model transcript after the findings: every call with what was sent and what came back. */
  readonly transcript?: boolean;
}

const RED = 31;
const GREEN = 32;
const YELLOW = 33;
const DIM = 2;
const CYAN = 36;

/** The messages of a replay's divergence findings (step, expected call, actual call). */
function divergences(result: RunResult): string[] {
  return DIMENSIONS.flatMap((d) =>
    gradeOf(result, d)
      .findings.filter((f) => f.code === REPLAY_DIVERGENCE)
      .map((f) => f.message),
  );
}

/**
 * One run for the terminal: what ran and how it ended, how to replay it, the timeline, then
 * each dimension's findings with the timeline entries they cite. Entries a finding cites are
 * marked in the timeline with the finding's number. Every text that came from the run is
 * printed through {@link printable}, so a hostile document cannot drive the terminal.
 *
 * @example
 * ```ts
 * const view = renderShow(result, JSON.parse(readFileSync(file, 'utf8')), { color: false });
 * ```
 */
export function renderShow(result: RunResult, trajectory: unknown, options: ShowOptions): string {
  const paint = (code: number, s: string): string =>
    options.color ? `\u001b[${code}m${s}\u001b[${code === DIM ? 22 : 39}m` : s;
  const view = timeline(trajectory);
  const passed = runPassed(result);

  // Number the findings, and note which timeline entries each one cites.
  const numbered = DIMENSIONS.flatMap((d) =>
    gradeOf(result, d).findings.map((f) => ({ dimension: d, finding: f })),
  ).map((f, i) => ({ ...f, n: i + 1, keys: f.finding.refs.map(refKey) }));
  const citedBy = new Map<string, number[]>();
  for (const f of numbered) {
    for (const key of f.keys) {
      const by = citedBy.get(key);
      if (by === undefined) citedBy.set(key, [f.n]);
      else by.push(f.n);
    }
  }
  for (const a of view.approvals) {
    // An approval is cited by token: mark the calls that presented it.
    const by = citedBy.get(`approval:${a.token}`);
    if (by && a.consumedBy !== null) {
      const key = `call:${a.consumedBy}`;
      citedBy.set(
        key,
        [...new Set([...(citedBy.get(key) ?? []), ...by])].sort((x, y) => x - y),
      );
    }
  }

  const lines: string[] = [];
  const ended = result.stopReason ? `${result.state} (${result.stopReason})` : result.state;
  lines.push(
    `${passed ? paint(GREEN, 'PASS') : paint(RED, 'FAIL')} ${printable(result.scenarioId)} / ${printable(result.faultPlanId)} · trial ${result.trial}`,
    printable(result.title),
    '',
    field('run', printable(result.id)),
    field(
      'agent',
      `${printable(result.agent)} ${printable(result.agentVersion)} · mode ${printable(result.mode)} · world ${printable(result.world)} · tier ${result.tier} · seed ${result.seed}`,
    ),
    // Only a run with a model says anything of models: without one the view reads as before.
    ...(hadModel(result)
      ? [
          field(
            'model',
            `${result.model ? `${printable(modelText(result.model))} · ` : ''}${usageText(usageOf(result))}`,
          ),
        ]
      : []),
    field(
      'faults',
      result.faultKinds.length === 0
        ? 'none planned'
        : `${result.faultKinds.map(printable).join(', ')} planned · ${result.faultsFired.length === 0 ? 'none fired' : `${result.faultsFired.map(printable).join(', ')} fired`}${(result.faultsNotApplicable ?? []).length > 0 ? ` · ${(result.faultsNotApplicable ?? []).length} not applicable` : ''}`,
    ),
    // A note, never a failure: the fault could not reach this agent.
    ...(result.faultsNotApplicable ?? []).map((f) =>
      field('', paint(DIM, `not applicable · ${describeFaultNotApplicable(f)}`)),
    ),
    field(
      'ended',
      `${printable(ended)}${result.detail ? `: ${printable(result.detail)}` : ''} · ${result.figures.calls} call(s) · ${result.figures.effects} effect(s) · ${formatDuration(result.figures.virtualMs)} virtual`,
    ),
    ...result.mismatches.map((m) => field('mismatch', paint(RED, printable(m)))),
    // A replay that left the recorded path: where, first, before any finding.
    ...divergences(result).map((m) => field('diverged', paint(RED, printable(m)))),
    field('replay', printable(result.replay)),
  );

  lines.push('', 'Timeline (virtual time)');
  const shown = view.entries.filter(
    (e) => e.kind !== 'event' || options.events === true || citedBy.has(e.key),
  );
  if (!view.agentRecords)
    lines.push(paint(DIM, '  (the agent exposes no records: no state transitions to show)'));
  if (shown.length === 0) lines.push('  (nothing happened)');
  let lastAt: number | null = null;
  for (const entry of shown) {
    const time = entry.at === lastAt ? '' : formatDuration(entry.at);
    lastAt = entry.at;
    const cites = citedBy.get(entry.key);
    const mark = cites ? `  ${paint(YELLOW, `◀ ${cites.map((n) => `[${n}]`).join('')}`)}` : '';
    lines.push(
      `  ${time.padStart(8)}  ${paint(kindColor(entry), entry.kind.padEnd(8))}  ${describeEntry(entry, paint)}${mark}`,
    );
  }
  if (view.unreadable > 0)
    lines.push(
      paint(
        YELLOW,
        `  (${view.unreadable} entr${view.unreadable === 1 ? 'y' : 'ies'} of the trajectory had an unexpected shape and are left out)`,
      ),
    );

  // A live shadow run: what the agent would have changed, had its writes been let through.
  const proposals = proposalsOf(trajectory);
  if (proposals !== undefined) {
    lines.push('', 'Proposals (writes held in shadow mode: what the run would have changed)');
    if (proposals.length === 0) lines.push('  (none: the agent sent no write)');
    for (const p of proposals) {
      const cites = citedBy.get(`call:${p.callId}`);
      const mark = cites ? `  ${paint(YELLOW, `◀ ${cites.map((n) => `[${n}]`).join('')}`)}` : '';
      lines.push(
        `  #${p.n} ${formatDuration(p.at).padStart(8)}  ${printable(p.tool)} ${printable(compactArgs(p.args))} · after ${p.evidence.length} read(s)${mark}`,
      );
    }
  }

  lines.push('', 'Findings');
  const entries = new Map(view.entries.map((e) => [e.key, e]));
  const clean: string[] = [];
  const skipped: string[] = [];
  for (const d of DIMENSIONS) {
    const grade = gradeOf(result, d);
    const findings = numbered.filter((f) => f.dimension === d);
    // Not judged: said so, with whatever it noted (a replay's divergence) listed as notes.
    if (grade.notApplicable !== undefined)
      lines.push(`  ${paint(DIM, '–')} ${d} · not applicable: ${printable(grade.notApplicable)}`);
    else {
      if (grade.whiteBoxSkipped) skipped.push(d);
      if (findings.length === 0) {
        clean.push(d);
        continue;
      }
      lines.push(
        `  ${grade.pass ? paint(YELLOW, '!') : paint(RED, '✗')} ${d} · score ${grade.score.toFixed(2)}`,
      );
    }
    for (const { finding, n, keys } of findings) {
      lines.push(`    [${n}] ${printable(finding.code)}: ${printable(finding.message)}`);
      for (const [k, key] of keys.entries()) {
        const entry = entries.get(key);
        const approval = view.approvals.find((a) => `approval:${a.token}` === key);
        const cited = entry
          ? `${formatDuration(entry.at)} ${entry.kind} ${describeEntry(entry, paint)}`
          : approval
            ? `approval ${printable(approval.token)} for ${printable(approval.tool)} ${printable(approval.identity)} by ${printable(approval.approver)} at ${formatDuration(approval.grantedAt)}${approval.consumedBy !== null ? `, used by call ${printable(approval.consumedBy)}` : ', never used'}`
            : `${printable(refText(finding.refs[k]))} (not in the trajectory)`;
        lines.push(`        ↳ ${cited}`);
      }
    }
  }
  if (clean.length > 0) lines.push(`  ${paint(GREEN, '✓')} ${clean.join(' · ')}: no findings`);
  if (skipped.length > 0)
    lines.push(
      paint(
        DIM,
        `  white-box checks skipped (the agent exposes no records): ${skipped.join(', ')}`,
      ),
    );
  if (options.transcript === true) lines.push('', ...renderTranscript(result, trajectory, paint));
  else if (result.figures.modelCalls > 0)
    lines.push(
      '',
      paint(
        DIM,
        `(${result.figures.modelCalls} model call${result.figures.modelCalls === 1 ? '' : 's'}: --transcript prints them)`,
      ),
    );
  return lines.join('\n');
}

/**
 * The longest text of a model call shown whole (a message, a reply, a tool's arguments);
 * longer ones are cut with a note of how much was left out and where it all is.
 */
export const TRANSCRIPT_TEXT_LIMIT = 600;

/**
 * The run's model transcript: per call its number, model, time, tokens, cost and latency (and
 * fault or error); the messages it added to the request (those sent again unchanged are
 * counted, not repeated); and the reply — text, tool calls, finish reason.
 */
function renderTranscript(
  result: RunResult,
  trajectory: unknown,
  paint: (code: number, s: string) => string,
): string[] {
  const transcript = readTranscript(trajectory);
  const lines = ['Model transcript'];
  if (transcript === null || (transcript.calls.length === 0 && transcript.unreadable === 0)) {
    lines.push(
      `  (${transcript === null ? 'the run had no model' : 'the agent made no model call'}: nothing to show)`,
    );
    return lines;
  }
  const trim = (text: string): string => {
    if (text.length <= TRANSCRIPT_TEXT_LIMIT) return text;
    const end = /[\uD800-\uDBFF]/.test(text[TRANSCRIPT_TEXT_LIMIT - 1] ?? '')
      ? TRANSCRIPT_TEXT_LIMIT - 1
      : TRANSCRIPT_TEXT_LIMIT;
    return `${text.slice(0, end)}… [${formatTokens(text.length - end)} more characters; ${result.trajectoryFile} has them all]`;
  };
  // Text as lines: each made printable, the ones after the first indented under the label.
  const block = (label: string, text: string, indent: string): string[] =>
    trim(text)
      .split('\n')
      .map((line, i) =>
        i === 0
          ? `${indent}${label}${printable(line)}`
          : `${' '.repeat(indent.length + label.length)}${printable(line)}`,
      );
  const json = (value: unknown): string =>
    value === undefined ? 'undefined' : JSON.stringify(value);
  const part = (p: MessagePart): string => {
    switch (p.kind) {
      case 'text':
        return p.text;
      case 'tool-call':
        return `tool call ${p.name} ${p.id} ${json(p.args)}`;
      case 'tool-result':
        return `tool result ${p.name} ${p.id} ${json(p.output)}`;
      case 'other':
        return `${p.type} ${json(p.value)}`;
    }
  };
  if (transcript.model !== null) lines.push(`  ${printable(modelText(transcript.model))}`);
  for (const call of transcript.calls) {
    lines.push(
      `  ${paint(CYAN, `#${call.index}`)} ${printable(call.modelId)} · ${formatDuration(call.at)} · incarnation ${call.incarnation} · ` +
        `${formatTokens(call.usage.inputTokens)} in / ${formatTokens(call.usage.outputTokens)} out tokens · ${formatUsd(call.costUsd)} · ${formatLatency(call.latencyMs)}` +
        (call.fault !== null ? ` · ${paint(YELLOW, `fault: ${printable(call.fault)}`)}` : '') +
        (call.error !== null ? ` · ${paint(RED, `error: ${printable(call.error.class)}`)}` : ''),
    );
    const { kept, messages, tools } = call.request;
    if (kept > 0)
      lines.push(
        paint(DIM, `      +${kept} earlier message${kept === 1 ? '' : 's'} (sent again unchanged)`),
      );
    for (const message of messages) {
      const view = messageView(message);
      for (const p of view.parts) lines.push(...block(`${view.role}: `, part(p), '      '));
    }
    if (tools.length > 0)
      lines.push(paint(DIM, `      tools offered: ${tools.map(printable).join(', ')}`));
    if (call.reply !== null) {
      if (call.reply.text !== '') lines.push(...block('reply: ', call.reply.text, '    → '));
      for (const c of call.reply.toolCalls)
        lines.push(...block('reply: ', `tool call ${c.name} ${c.id} ${json(c.args)}`, '    → '));
      lines.push(paint(DIM, `      finish reason: ${printable(call.reply.finishReason)}`));
    } else if (call.error !== null)
      lines.push(
        ...block(`${call.error.class}: `, call.error.message, '    ✗ ').map((l) => paint(RED, l)),
      );
  }
  if (transcript.unreadable > 0)
    lines.push(
      paint(
        YELLOW,
        `  (${transcript.unreadable} model call(s) had an unexpected shape and are left out)`,
      ),
    );
  return lines;
}

function field(name: string, value: string): string {
  return `${name.padEnd(9)}${value}`;
}

function kindColor(entry: TimelineEntry): number {
  switch (entry.kind) {
    case 'fault':
    case 'crash':
      return RED;
    case 'operator':
    case 'restart':
      return YELLOW;
    case 'end':
      return entry.outcome.state === 'completed' ? GREEN : RED;
    case 'state':
    case 'event':
    case 'call':
    case 'effect':
      return DIM;
  }
}

/** One timeline entry in words (without its time and kind). */
function describeEntry(entry: TimelineEntry, paint: (code: number, s: string) => string): string {
  switch (entry.kind) {
    case 'state': {
      const e = entry.event;
      return `${e.fromState === null ? '' : `${printable(e.fromState)} `}→ ${printable(e.toState ?? '')}  ${paint(DIM, eventText(e))}`;
    }
    case 'event':
      return eventText(entry.event);
    case 'restart': {
      const why = entry.event?.reason ? `: ${printable(entry.event.reason)}` : '';
      return `incarnation ${entry.incarnation}${entry.pid !== null ? ` (pid ${entry.pid})` : ''}${why}`;
    }
    case 'call': {
      const c = entry.call;
      const extras = [
        c.idempotencyKey !== null ? `key ${printable(shorten(c.idempotencyKey, 13))}` : '',
        c.approvalToken !== null ? `approval ${printable(c.approvalToken)}` : '',
      ].filter((x) => x !== '');
      const fault = c.fault !== null ? `  ${paint(RED, `⚡ ${printable(c.fault)}`)}` : '';
      return `${printable(c.callId)} ${printable(c.tool)}(${compactArgs(c.args)}) → ${callOutcome(c, paint)}${extras.length > 0 ? ` [${extras.join(', ')}]` : ''}${fault}`;
    }
    case 'fault':
      return `#${entry.fault.index} ${printable(entry.fault.kind)}: ${printable(entry.fault.detail)}`;
    case 'effect': {
      const e = entry.effect;
      const origin =
        entry.origin === 'setup'
          ? ' (setup, before the run)'
          : entry.origin === 'outside'
            ? ' (from outside the run)'
            : '';
      const undo = e.compensates !== null ? ` (undoes #${e.compensates})` : '';
      return `#${e.seq} ${printable(e.tool)} ${printable(e.identity)}${undo}${origin}`;
    }
    case 'crash': {
      const c = entry.crash;
      const how = [
        c.mode,
        ...(c.signal !== null ? [c.signal] : []),
        ...(c.pid !== null ? [`pid ${c.pid}`] : []),
      ]
        .map(printable)
        .join(', ');
      return `#${entry.index} at ${printable(c.probe)}${c.operation !== null ? ` of ${printable(c.operation)}` : ''} (${how})`;
    }
    case 'operator':
      return `${printable(entry.entry.kind)}: ${printable(entry.entry.detail)}`;
    case 'end': {
      const o = entry.outcome;
      return `${printable(o.state)}${o.stopReason !== null ? ` (${printable(o.stopReason)})` : ''}${o.detail !== null ? `: ${printable(shorten(o.detail, 160))}` : ''}${o.hung ? ' — hung: no end was reached' : ''}`;
    }
  }
}

function eventText(e: AgentEvent): string {
  const parts = [
    e.type,
    ...(e.operationId !== null ? [e.operationId] : []),
    ...(e.resultClass !== null ? [`(${e.resultClass})`] : []),
  ];
  return printable(`${parts.join(' ')}${e.reason !== null ? `: ${shorten(e.reason, 120)}` : ''}`);
}

function callOutcome(c: Call, paint: (code: number, s: string) => string): string {
  const o = c.outcome;
  const outcome =
    o === null
      ? '?'
      : o.type === 'ok'
        ? paint(GREEN, 'ok')
        : o.type === 'fail'
          ? paint(RED, printable(o.class))
          : paint(YELLOW, `no reply (${printable(o.reason)})`);
  return c.reply === 'delivered' ? outcome : `${outcome} · reply ${printable(c.reply)}`;
}

/** `order_id=ord_4, amount_cents=2500, reason="late delivery goodwill"`, cut at 80 characters. */
function compactArgs(args: Readonly<Record<string, unknown>>): string {
  const value = (v: unknown): string =>
    typeof v === 'string' && /^[\w.:@/-]+$/.test(v) ? v : JSON.stringify(v);
  return printable(
    shorten(
      Object.entries(args)
        .map(([k, v]) => `${k}=${value(v)}`)
        .join(', '),
      80,
    ),
  );
}

function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** The timeline key a finding's ref names: `call:0/6`, `effect:2`, `outcome`, … */
function refKey(ref: Readonly<Record<string, unknown>>): string {
  const id = ref['callId'] ?? ref['seq'] ?? ref['index'] ?? ref['token'];
  return ref['kind'] === 'outcome' ? 'outcome' : `${String(ref['kind'])}:${String(id)}`;
}

function refText(ref: Readonly<Record<string, unknown>> | undefined): string {
  return ref === undefined ? '(no ref)' : refKey(ref).replace(':', ' ');
}
