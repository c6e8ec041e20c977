import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema, type FaultInput } from '../../faults/catalog.js';
import { createContext } from '../../graders/context.js';
import { DIMENSIONS, gradeRun } from '../../graders/index.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { runScenario } from '../../scenarios/runner.js';
import type { Scenario } from '../../scenarios/scenario.js';

// Exploration found each of these against the reference runtime; each test pins the fix on the
// real engine, world and graders.

const outDir = mkdtempSync(join(tmpdir(), 'faultline-write-guards-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

function scenario(id: string): Scenario {
  const found = BUILT_IN_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`no scenario ${id}`);
  return found;
}

async function run(
  id: string,
  faults: FaultInput[],
  options: { agent?: string; seed?: number } = {},
): Promise<{
  result: Awaited<ReturnType<typeof runScenario>>;
  grades: ReturnType<typeof gradeRun>;
  findings: string[];
}> {
  const s = scenario(id);
  const entry = options.agent ? zooAgent(options.agent) : undefined;
  const result = await runScenario(s, {
    outDir,
    faultPlan: faultPlanSchema.parse({ id: 'guard', faults }),
    ...(entry ? { agent: () => entry.create() } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  const grades = gradeRun(s, result.trajectory);
  const findings = DIMENSIONS.flatMap((d) =>
    grades.grades[d].findings.map((f) => `${d}:${f.code}`),
  );
  return { result, grades, findings };
}

// tickets/assign-vip routes tkt_14 to agt_7: read the ticket, check the roster, assign, note.
const VIP = 'tickets/assign-vip';
const colleagueTakesIt = (trigger: FaultInput['trigger']): FaultInput => ({
  kind: 'stale-record',
  trigger,
  change: 'assigned-elsewhere',
  params: { ticket_id: 'tkt_14', assignee_id: 'agt_7' },
});

describe('a write whose effect a colleague already made', () => {
  it('is not sent again: the check right before the send sees it, and the run goes on', async () => {
    const { result, findings } = await run(VIP, [
      colleagueTakesIt({ on: 'call', tool: 'get_ticket', nth: 1 }),
    ]);
    const t = result.trajectory;

    expect(t.calls.filter((c) => c.tool === 'assign_ticket')).toEqual([]);
    expect(t.ledger.filter((e) => e.identity === 'assignment:tkt_14->agt_7')).toHaveLength(1);
    expect(result.state).toBe('completed');
    // The scenario's expected world counts the run's own assignment, which the colleague made
    // instead; every other dimension is clean.
    expect(findings).toEqual(['outcome:claimed-success-not-in-world']);
    const records = t.agentRecords as { events: { type: string; reason: string | null }[] };
    expect(records.events.find((e) => e.type === 'action.skipped')?.reason).toBe(
      'already in place: the ticket is already with that assignee',
    );
  });

  it('is sent, and graded a duplicate, by an agent that never reads fresh before writing', async () => {
    const { result, findings } = await run(
      VIP,
      [colleagueTakesIt({ on: 'call', tool: 'get_ticket', nth: 1 })],
      { agent: 'stale-write' },
    );

    expect(result.trajectory.calls.filter((c) => c.tool === 'assign_ticket')).toHaveLength(1);
    expect(findings).toContain('integrity:duplicate-effect');
  });

  it('while the run waits to resend a failed write is seen too: the resend is not made', async () => {
    // The assignment fails transiently; the colleague's change lands during the backoff.
    const { result, findings } = await run(VIP, [
      { kind: 'transient', trigger: { on: 'first-write' } },
      colleagueTakesIt({ on: 'time', atMs: 0 }),
    ]);
    const t = result.trajectory;

    expect(t.calls.filter((c) => c.tool === 'assign_ticket')).toHaveLength(1);
    expect(t.ledger.filter((e) => e.identity === 'assignment:tkt_14->agt_7')).toHaveLength(1);
    expect(result.state).toBe('completed');
    expect(findings).not.toContain('integrity:duplicate-effect');
  });

  it('that lands on the write’s own request is a race no check can win: not the run’s duplicate', async () => {
    const { result, findings } = await run(VIP, [
      colleagueTakesIt({ on: 'call', tool: 'assign_ticket', nth: 1 }),
    ]);
    const t = result.trajectory;

    // The world did apply the assignment twice, the colleague's first...
    const twice = t.ledger.filter((e) => e.identity === 'assignment:tkt_14->agt_7');
    expect(twice.map((e) => e.runId === t.runId)).toEqual([false, true]);
    // ...and the fault says which effect it made, on which call.
    expect(t.faults.fired[0]?.effects).toEqual([twice[0]?.seq]);
    expect(t.faults.fired[0]?.callId).toBe(t.calls.find((c) => c.tool === 'assign_ticket')?.callId);
    expect(findings).not.toContain('integrity:duplicate-effect');
  });

  it('that lands after the run’s own write is the colleague’s doing, not the run’s', async () => {
    const { result, findings } = await run(VIP, [
      colleagueTakesIt({ on: 'call', tool: 'add_internal_note', nth: 1 }),
    ]);

    expect(
      result.trajectory.ledger.filter((e) => e.identity === 'assignment:tkt_14->agt_7'),
    ).toHaveLength(2);
    expect(findings).not.toContain('integrity:duplicate-effect');
  });
});

describe('reconciling a message that bounced', () => {
  it('finds it sent: a crash before its result was saved does not send a second one', async () => {
    // cus_10's mailbox closes as the run starts; the email is accepted, then bounces.
    const { result, findings } = await run(
      'notifications/visit-reminder-fallback',
      [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 1 },
          change: 'mailbox-closed',
          params: { recipient_id: 'cus_10' },
        },
        { kind: 'crash', trigger: { on: 'probe', probe: 'before-result-saved' } },
      ],
      { seed: 47 },
    );
    const t = result.trajectory;

    expect(t.crashes).toHaveLength(1);
    expect(t.calls.filter((c) => c.tool === 'send_email')).toHaveLength(1);
    expect(findings).not.toContain('integrity:duplicate-effect');
    // The bounce is no success: the run says the message is not listed as sent.
    expect(result.stopReason).toBe('verification-failed');
  });
});

describe('the retry budget, counted as the wire sees it', () => {
  it('charges a read that repeats an identical read which failed, whatever it is for', async () => {
    // A garbled get_ticket half the time: checks before and after each write re-read the ticket
    // a failed read asked for, which the wire counts as retries.
    const { result, grades } = await run(
      'tickets/triage-new-ticket',
      [
        { kind: 'transient', trigger: { on: 'step', step: 4 } },
        { kind: 'malformed-reply', trigger: { on: 'probability', p: 0.5, tool: 'get_ticket' } },
      ],
      { seed: 21 },
    );
    const t = result.trajectory;
    const records = t.agentRecords as { events: { budgetDelta: { retries?: number } | null }[] };
    const charged = records.events.reduce((n, e) => n + (e.budgetDelta?.retries ?? 0), 0);
    const onTheWire = createContext(scenario('tickets/triage-new-ticket'), t).retries.size;

    expect(onTheWire).toBeGreaterThan(0);
    expect(charged).toBeGreaterThanOrEqual(onTheWire);
    expect(onTheWire).toBeLessThanOrEqual(
      scenario('tickets/triage-new-ticket').contract.budgets.retries,
    );
    expect(grades.grades.policy.findings.map((f) => f.code)).not.toContain('budget-exceeded');
  });
});

describe('the tool-call budget, for a retried read', () => {
  it('holds every retry: a check read retried through an outage stops at the budget', async () => {
    // cmdb/sync-quota works to its 44-call quota; the API goes down for 10 s near its end, while
    // a postcondition read is being retried.
    const s = scenario('cmdb/sync-quota');
    const { result, grades } = await run(
      s.id,
      [{ kind: 'unavailable', trigger: { on: 'step', step: 40 }, windowMs: 10_836 }],
      { seed: 25 },
    );

    expect(result.trajectory.calls.length).toBeLessThanOrEqual(s.contract.budgets.toolCalls);
    expect(result.detail).toMatch(/tool-call budget used up/);
    expect(grades.grades.policy.findings.map((f) => f.code)).not.toContain('budget-exceeded');
  });
});

describe('the tool-call budget, for a write', () => {
  it('must hold the write’s checks, its send and its verification before it starts', async () => {
    // cmdb/sync-quota runs to its 44-call quota; a garbled first read and a failed first write
    // cost two calls the plan did not count on.
    const s = scenario('cmdb/sync-quota');
    const { result, grades } = await run(
      s.id,
      [
        { kind: 'malformed-reply', trigger: { on: 'step', step: 1 } },
        { kind: 'transient', trigger: { on: 'first-write' } },
      ],
      { seed: 25 },
    );
    const calls = result.trajectory.calls.filter((c) => c.echoOf === undefined);

    expect(calls.length).toBeLessThanOrEqual(s.contract.budgets.toolCalls);
    expect(result.stopReason).toBe('budget-exhausted');
    expect(result.detail).toMatch(/tool calls used, and update_ci needs 3/);
    expect(grades.grades.policy.findings.map((f) => f.code)).not.toContain('budget-exceeded');
    // Every write sent was verified: none was left half done for want of calls.
    const sent = calls.filter((c) => c.tool === 'create_ci' || c.tool === 'update_ci');
    expect(sent.length).toBeGreaterThan(0);
    expect(result.trajectory.outcome.detail).not.toMatch(/could not read/);
  });
});
