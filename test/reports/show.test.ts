import { describe, expect, it } from 'vitest';
import { runResultSchema, type RunResult } from '../../reports/results.js';
import { renderShow, timeline, TrajectoryShapeError } from '../../reports/show.js';
import { runRecord } from '../support/result-sets.js';

/** A valid run record with clean grades, for trajectories made by hand. */
function record(overrides: Partial<RunResult> = {}): RunResult {
  return runResultSchema.parse({
    ...runRecord({
      agent: 'agent',
      mode: 'bounded',
      scenarioId: 'w/s',
      faultPlanId: 'plan',
      seed: 1,
    }),
    title: 'a scenario',
    world: 'w',
    workflowClass: 'c',
    tier: 'low',
    replay: 'npx faultline run w/s --plan plan --seed 1',
    trajectoryFile: 'trajectories/x.json',
    ...overrides,
  });
}

function call(callId: string, at: number, extra: Record<string, unknown> = {}) {
  return {
    callId,
    incarnation: Number(callId.split('/')[0]),
    step: 1,
    toolCall: 1,
    tool: 'write_thing',
    args: { id: 'a' },
    idempotencyKey: null,
    approvalToken: null,
    at,
    fault: null,
    effects: [],
    reply: 'delivered',
    outcome: { type: 'ok' },
    ...extra,
  };
}

function trajectory(parts: Record<string, unknown>) {
  return {
    format: 'faultline-trajectory',
    version: 2,
    calls: [],
    ledger: [],
    faults: { planned: [], fired: [] },
    crashes: [],
    operator: [],
    approvals: [],
    agentRecords: null,
    outcome: { state: 'completed', stopReason: null, detail: null, hung: false },
    times: { virtualMs: 5000, wallMs: 1 },
    ...parts,
  };
}

function event(seq: number, at: number, type: string, extra: Record<string, unknown> = {}) {
  return {
    seq,
    at,
    type,
    fromState: null,
    toState: null,
    reason: null,
    operationId: null,
    requestId: null,
    resultClass: null,
    operatorAction: null,
    ...extra,
  };
}

const kinds = (t: unknown): string[] =>
  timeline(t).entries.map((e) => `${e.kind} ${e.key} @${e.at}`);

describe('timeline', () => {
  it('refuses what is not a trajectory', () => {
    for (const value of [null, [], 'x', { format: 'other' }])
      expect(() => timeline(value)).toThrow(TrajectoryShapeError);
  });

  it('without agent records, shows the crash and a restart before the next incarnation', () => {
    const view = timeline(
      trajectory({
        calls: [call('0/1', 0), call('0/2', 10), call('1/1', 10), call('1/2', 20)],
        crashes: [
          {
            probe: 'after-apply',
            at: 10,
            mode: 'child',
            operation: 'op',
            pid: 41,
            signal: 'SIGKILL',
            resumedPid: 42,
          },
        ],
        faults: {
          planned: [],
          fired: [{ index: 0, kind: 'crash', at: 10, callId: null, detail: 'dies' }],
        },
      }),
    );

    expect(view.agentRecords).toBe(false);
    expect(view.entries.map((e) => e.key)).toEqual([
      'call:0/1',
      'call:0/2',
      'fault:0',
      'crash:0',
      'restart:1',
      'call:1/1',
      'call:1/2',
      'outcome',
    ]);
    const restart = view.entries[4]!;
    expect(restart).toMatchObject({ kind: 'restart', incarnation: 1, pid: 42 });
  });

  it('orders same-instant entries by what links them: a call before the event answering it', () => {
    const t = trajectory({
      calls: [
        call('0/1', 0),
        call('0/2', 0, {
          fault: 'lost-ack',
          reply: 'dropped',
          outcome: { type: 'info', reason: 'lost' },
          effects: [1],
        }),
      ],
      ledger: [
        {
          seq: 1,
          at: 0,
          runId: 'r',
          tool: 'write_thing',
          requestId: '0/2',
          identity: 'thing:a',
          compensates: null,
        },
      ],
      faults: {
        planned: [],
        fired: [{ index: 0, kind: 'lost-ack', at: 0, callId: '0/2', detail: 'reply lost' }],
      },
      agentRecords: {
        events: [
          event(1, 0, 'run.created', { toState: 'created' }),
          event(2, 0, 'action.read', {
            requestId: 'r1',
            fromState: 'created',
            toState: 'executing',
          }),
          event(3, 0, 'action.intended'),
          event(4, 30, 'action.ambiguous', { requestId: 'w1' }),
          event(5, 30, 'run.completed', { fromState: 'executing', toState: 'completed' }),
        ],
      },
    });

    expect(kinds(t)).toEqual([
      'state agent-event:1 @0',
      'call call:0/1 @0',
      'state agent-event:2 @0',
      'event agent-event:3 @0',
      'call call:0/2 @0',
      'fault fault:0 @0',
      'effect effect:1 @0',
      'event agent-event:4 @30',
      'state agent-event:5 @30',
      'end outcome @5000',
    ]);
  });

  it('puts an operator decision before the event that took it, even at the same instant', () => {
    const t = trajectory({
      operator: [{ at: 0, kind: 'approval.granted', detail: 'by ops' }],
      agentRecords: {
        events: [
          event(1, 0, 'approval.requested', { fromState: 'executing', toState: 'waiting' }),
          event(2, 0, 'approval.granted', {
            fromState: 'waiting',
            toState: 'executing',
            operatorAction: 'approval.granted',
          }),
        ],
      },
    });

    expect(kinds(t).slice(0, 3)).toEqual([
      'state agent-event:1 @0',
      'operator operator:0 @0',
      'state agent-event:2 @0',
    ]);
  });

  it('shows setup effects first, and a change from outside under the fault that made it', () => {
    const t = trajectory({
      calls: [call('0/1', 5)],
      ledger: [
        {
          seq: 1,
          at: 0,
          runId: 'setup',
          tool: 'write_thing',
          requestId: 'setup-1',
          identity: 'thing:old',
          compensates: null,
        },
        {
          seq: 2,
          at: 5,
          runId: 'outside',
          tool: 'undo_thing',
          requestId: 'outside',
          identity: 'undo:a',
          compensates: 1,
        },
      ],
      faults: {
        planned: [],
        fired: [
          { index: 0, kind: 'stale-record', at: 5, callId: '0/1', detail: 'a colleague undid it' },
        ],
      },
    });

    expect(
      timeline(t).entries.map((e) => (e.kind === 'effect' ? `${e.key} ${e.origin}` : e.key)),
    ).toEqual(['effect:1 setup', 'call:0/1', 'fault:0', 'effect:2 outside', 'outcome']);
  });

  it('skips entries of the wrong shape and counts them', () => {
    const view = timeline(
      trajectory({ calls: [call('0/1', 0), { callId: 7 }, 'junk'], crashes: 'none' }),
    );

    expect(view.entries.map((e) => e.key)).toEqual(['call:0/1', 'outcome']);
    expect(view.unreadable).toBe(3);
  });
});

describe('renderShow', () => {
  it('prints hostile text escaped: no control character or bidi override reaches the terminal', () => {
    const hostile = 'x\u001b[2J\u202eevil\r\n';
    const t = trajectory({
      calls: [call('0/1', 0, { tool: `t${hostile}`, args: { note: hostile } })],
      operator: [{ at: 0, kind: 'operator.cancel', detail: hostile }],
    });
    const r = record({ title: hostile, detail: hostile, replay: `npx faultline run ${hostile}` });

    const text = renderShow(r, t, { color: false });

    const raw = Array.from(text).filter(
      (c) => c !== '\n' && (c < ' ' || c === '\u007f' || c === '\u202e'),
    );
    expect(raw).toEqual([]);
    expect(text).toContain('x\\u001b[2J\\u202eevil\\r\\n');
    expect(text).toContain('note="x\\u001b[2J\\u202eevil\\r\\n"');
  });

  it('cites the entries a finding points at, approvals included, and marks them', () => {
    const t = trajectory({
      calls: [call('0/1', 0, { approvalToken: 'apr_1' }), call('0/2', 60_000)],
      approvals: [
        {
          token: 'apr_1',
          tool: 'write_thing',
          identity: 'thing:a',
          approver: 'ops',
          grantedAt: 0,
          consumedAt: 0,
          consumedBy: '0/1',
        },
      ],
    });
    const r = record({ pass: false });
    const policy = r.grades.policy!;
    policy.pass = false;
    policy.findings.push(
      {
        code: 'approval-misused',
        message: 'used twice',
        refs: [
          { kind: 'approval', token: 'apr_1' },
          { kind: 'call', callId: '0/2' },
        ],
      },
      { code: 'budget-exceeded', message: 'too long', refs: [{ kind: 'call', callId: '9/9' }] },
    );

    const text = renderShow(r, t, { color: false });

    expect(text.split('\n')[0]).toBe('FAIL w/s / plan · trial 0');
    expect(text).toMatch(
      /^ {7}0ms {2}call {6}0\/1 write_thing\(id=a\) → ok \[approval apr_1\] {2}◀ \[1\]$/m,
    );
    expect(text).toMatch(/^ {8}1m {2}call {6}0\/2 write_thing\(id=a\) → ok {2}◀ \[1\]$/m);
    expect(text).toContain(
      '        ↳ approval apr_1 for write_thing thing:a by ops at 0ms, used by call 0/1',
    );
    expect(text).toContain('        ↳ 1m call 0/2 write_thing(id=a) → ok');
    expect(text).toContain(
      '    [2] budget-exceeded: too long\n        ↳ call 9/9 (not in the trajectory)',
    );
    expect(text).toContain('  ✗ policy · score 1.00');
  });

  it('paints only when asked to', () => {
    const t = trajectory({ calls: [call('0/1', 0)] });

    expect(renderShow(record(), t, { color: false })).not.toContain('\u001b[');
    expect(renderShow(record(), t, { color: true })).toContain('\u001b[32mPASS\u001b[39m');
  });
});

describe('renderShow: a replay', () => {
  it('names the divergence on its own line, and shows an outcome not judged as not applicable', () => {
    const clean = record();
    const grades = structuredClone(clean.grades);
    const toolUse = grades['tool-use'];
    const outcome = grades.outcome;
    if (!toolUse || !outcome) throw new Error('no grades');
    grades['tool-use'] = {
      ...toolUse,
      pass: false,
      findings: [
        {
          code: 'replay-divergence',
          message:
            'replay divergence at step 3: expected issue_refund {"amount_cents":500}, got issue_refund {"amount_cents":900}',
          refs: [],
        },
      ],
    };
    grades.outcome = { ...outcome, notApplicable: 'the recording carries no verdict' };
    const r = record({ mode: 'replay', grades });

    const text = renderShow(r, trajectory({ calls: [call('0/1', 0)] }), { color: false });

    expect(text).toMatch(
      /^diverged +replay divergence at step 3: expected issue_refund \{"amount_cents":500\}, got issue_refund \{"amount_cents":900\}$/m,
    );
    expect(text).toContain('  – outcome · not applicable: the recording carries no verdict');
    expect(text).not.toMatch(/✓ outcome/);
  });
});
