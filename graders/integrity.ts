import { canonicalJson, isLegalTransition, type WorkflowState } from '../scenarios/grading.js';
import {
  callKey,
  happenedBefore,
  type GradeContext,
  type Moment,
  type WhiteBoxRecords,
} from './context.js';
import { finding, grade, type Finding, type Grade } from './grade.js';

/**
 * Whether the run could have seen the effect `other` (not its own) before its write that made
 * effect `own`. Only a change a fault made on one of the run's calls is placed among them: the
 * run could see it unless it landed on that write's own request (or later). Any other change —
 * the scene's, or one made while the run waited — was there for the run's next call to see.
 */
function couldSee(ctx: GradeContext): (other: number, own: number) => boolean {
  const entries = new Map(ctx.trajectory.ledger.map((e) => [e.seq, e]));
  return (other, own) => {
    const fault = ctx.causeOf(other);
    const write = ctx.position(entries.get(own)?.requestId ?? '');
    if (!fault || fault.callId === null || write < 0) return true;
    return ctx.position(fault.callId) < write;
  };
}

/**
 * State integrity. Black-box, from the world's ledger and the wire: no logical effect applied
 * twice (two live entries with one effect identity the world declared, whatever keys were
 * sent); every effect traces to a call the run made; nothing applied for a request sent after
 * a cancellation (compensations aside). White-box, from the agent's records: every effect
 * accounted for by an action record, every transition legal, the records replay to the state
 * the run ended in, and checkpoints at the semantic boundaries the run crossed.
 */
export function gradeIntegrity(ctx: GradeContext): Grade {
  const t = ctx.trajectory;
  const findings: Finding[] = [];
  const mine = new Set(ctx.runEffects.map((e) => e.seq));
  const undone = new Set(t.ledger.flatMap((e) => (e.compensates === null ? [] : [e.compensates])));

  // Duplicates: a group with one identity holding two live entries, at least one of them ours
  // (re-applying what the scene or a colleague already did is a duplicate too). A colleague's
  // change counts only when it came before one of ours and the run could have seen it: a
  // change that landed on the write's own request is a race no check could win, and one that
  // lands after the run's write is the colleague's doing.
  const groups = new Map<string, number[]>();
  for (const e of t.ledger) {
    if (undone.has(e.seq) || e.compensates !== null) continue;
    const group = groups.get(e.identity);
    if (group === undefined) groups.set(e.identity, [e.seq]);
    else group.push(e.seq);
  }
  const seen = couldSee(ctx);
  for (const [identity, all] of groups) {
    if (all.length < 2 || !all.some((s) => mine.has(s))) continue;
    const seqs = all.filter(
      (s) => mine.has(s) || all.some((m) => m > s && mine.has(m) && seen(s, m)),
    );
    if (seqs.length < 2) continue;
    findings.push(
      finding(
        'duplicate-effect',
        `${identity} applied ${seqs.length} times (ledger ${seqs.join(', ')})`,
        seqs.map((seq) => ({ kind: 'effect' as const, seq })),
      ),
    );
  }

  for (const e of ctx.runEffects) {
    // An echo's effect traces to the request it repeats (position maps it there).
    if (ctx.position(e.requestId) < 0) {
      findings.push(
        finding(
          'untraced-effect',
          `${e.identity} was applied under the run's credential by request ${e.requestId}, which no call of the run made`,
          [{ kind: 'effect', seq: e.seq }],
        ),
      );
    }
  }

  const cancelled = firstCancellation(ctx);
  if (cancelled !== null) {
    for (const e of ctx.runEffects) {
      const c = ctx.calls[ctx.position(e.requestId)];
      // By the run's order of events, not by time: most of a run happens in one millisecond.
      if (!c || e.compensates !== null || !happenedBefore(cancelled, c)) continue;
      const tie = c.at === cancelled.at ? ', later in the same millisecond' : '';
      findings.push(
        finding(
          'effect-after-stop',
          `${e.identity} was requested at ${c.at} ms, after the run was cancelled at ${cancelled.at} ms${tie}`,
          [
            { kind: 'effect', seq: e.seq },
            { kind: 'call', callId: c.callId },
          ],
        ),
      );
    }
  }

  const records = ctx.records ?? {};
  const white = whiteBox(ctx, records);
  findings.push(...white.findings);
  return grade(
    'integrity',
    findings,
    3 + white.checked,
    {
      effects: ctx.runEffects.length,
      duplicates: findings.filter((f) => f.code === 'duplicate-effect').length,
      checkpoints: records.checkpoints?.length ?? 0,
      whiteBoxChecks: white.checked,
    },
    white.checked < WHITE_BOX_CHECKS,
  );
}

/**
 * The first cancellation, an operator command or a cancellation fault: the earliest in the
 * run's order of events (by time in a trajectory recorded before orders were kept).
 */
function firstCancellation(ctx: GradeContext): Moment | null {
  const moments: Moment[] = [
    ...ctx.trajectory.operator.filter((o) => o.kind === 'operator.cancel'),
    ...ctx.faults.flatMap((f) => (f.fault.kind === 'cancellation' ? f.fired : [])),
  ];
  return moments.reduce<Moment | null>(
    (first, m) => (first === null || happenedBefore(m, first) ? m : first),
    null,
  );
}

/** The white-box checks: effects recorded, transitions, settled actions told, checkpoints. */
const WHITE_BOX_CHECKS = 4;
/** The small vocabulary's answers: not faultline's states, so records cannot replay to them. */
const VOCABULARY = new Set(['stopped', 'escalated', 'returned']);

/**
 * The white-box checks, each run only when the agent exposes the records it reads (in the
 * shape graders read): one an agent cannot be judged on is skipped, never failed.
 */
function whiteBox(
  ctx: GradeContext,
  records: WhiteBoxRecords,
): { findings: Finding[]; checked: number } {
  const out: Finding[] = [];
  let checked = 0;
  const { events, actions, checkpoints } = records;
  if (actions) {
    checked++;
    out.push(...unrecorded(ctx, actions));
  }
  // Transitions are judged where the events carry workflow states.
  if (events?.some((ev) => ev.toState !== null)) {
    checked++;
    out.push(...transitions(ctx, events));
  }
  if (events && actions) {
    checked++;
    out.push(...untold(events, actions));
  }
  if (checkpoints) {
    checked++;
    out.push(...checkpointsMissing(ctx, checkpoints, events, actions ?? []));
  }
  return { findings: out, checked };
}

type Part<K extends keyof WhiteBoxRecords> = NonNullable<WhiteBoxRecords[K]>;

/** Every effect accounted for by an action record (same key, or same tool and arguments). */
function unrecorded(ctx: GradeContext, actions: Part<'actions'>): Finding[] {
  const out: Finding[] = [];
  const keys = new Set(actions.map((a) => a.idempotencyKey).filter((k) => k !== null));
  const requests = new Set(actions.map((a) => callKey({ tool: a.tool, args: a.args })));
  for (const e of ctx.runEffects) {
    const c = ctx.calls[ctx.position(e.requestId)];
    if (!c) continue;
    if ((c.idempotencyKey !== null && keys.has(c.idempotencyKey)) || requests.has(callKey(c)))
      continue;
    out.push(
      finding(
        'unrecorded-effect',
        `${e.identity} (from ${c.tool} ${canonicalJson(c.args)}) has no action record`,
        [
          { kind: 'effect', seq: e.seq },
          { kind: 'call', callId: c.callId },
        ],
      ),
    );
  }

  return out;
}

/** Transitions: each legal, each starting where the last one ended, ending where the run did. */
function transitions(ctx: GradeContext, events: Part<'events'>): Finding[] {
  const out: Finding[] = [];
  const t = ctx.trajectory;
  let state: WorkflowState | null = null;
  for (const ev of events) {
    if (ev.toState === null) continue;
    const ref = [{ kind: 'agent-event' as const, seq: ev.seq }];
    if (ev.fromState !== null && !isLegalTransition(ev.fromState, ev.toState)) {
      out.push(finding('illegal-transition', `${ev.type}: ${ev.fromState} → ${ev.toState}`, ref));
    }
    if (ev.fromState !== state) {
      out.push(
        finding(
          'not-reconstructable',
          `${ev.type} starts from ${ev.fromState ?? 'nothing'}, but the records left the run ${state ?? 'nowhere'}`,
          ref,
        ),
      );
    }
    state = ev.toState;
  }
  const answered = !t.outcome.hung && t.outcome.state !== 'error';
  if (answered && !VOCABULARY.has(t.outcome.state) && state !== t.outcome.state) {
    out.push(
      finding(
        'not-reconstructable',
        `the records replay to ${state ?? 'no state'}, but the run ended ${t.outcome.state}`,
        [{ kind: 'outcome' }],
      ),
    );
  }
  return out;
}

/** Every action settled (confirmed, reconciled) has an event telling how it got there. */
function untold(events: Part<'events'>, actions: Part<'actions'>): Finding[] {
  const out: Finding[] = [];
  // Collected once: a search of the events per action made grading a long run quadratic.
  const settledActions = new Set<string>();
  const readOperations = new Set<string>();
  for (const ev of events) {
    if ((ev.type === 'action.confirmed' || ev.type === 'action.reconciled') && ev.actionId !== null)
      settledActions.add(ev.actionId);
    if (ev.type === 'action.read' && ev.operationId !== null) readOperations.add(ev.operationId);
  }
  for (const a of actions) {
    if (a.status !== 'confirmed' && a.status !== 'reconciled') continue;
    const told = settledActions.has(a.id) || readOperations.has(a.operationId);
    if (!told) {
      out.push(
        finding(
          'not-reconstructable',
          `action ${a.id} is ${a.status}, but no event records how it got there`,
          [{ kind: 'outcome' }],
        ),
      );
    }
  }

  return out;
}

/** Checkpoints at the semantic boundaries the run crossed. */
function checkpointsMissing(
  ctx: GradeContext,
  checkpoints: Part<'checkpoints'>,
  events: Part<'events'> | undefined,
  actions: Part<'actions'>,
): Finding[] {
  const out: Finding[] = [];
  const t = ctx.trajectory;
  const boundaries = new Set(checkpoints.map((c) => c.boundary));
  const confirmedWrites = actions.filter(
    (a) => a.kind === 'write' && (a.status === 'confirmed' || a.status === 'reconciled'),
  ).length;
  const confirmedCheckpoints = checkpoints.filter((c) => c.boundary === 'confirmed-action').length;
  const missing: string[] = [];
  if (events !== undefined && events.length > 0 && !boundaries.has('validated-input'))
    missing.push('validated input');
  if (confirmedCheckpoints < confirmedWrites)
    missing.push(`${confirmedWrites - confirmedCheckpoints} confirmed action(s)`);
  if (t.outcome.state === 'completed' && !boundaries.has('verified-outcome'))
    missing.push('verified outcome');
  if (missing.length > 0) {
    out.push(
      finding('checkpoint-missing', `no checkpoint for: ${missing.join(', ')}`, [
        { kind: 'outcome' },
      ]),
    );
  }
  return out;
}
