import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema, type FaultPlanInput } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import type { AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial, type TrialResult } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
// The README's agent module: a user's plain agent, with no probes, no planner, no resume.
import plainAgent from '../../examples/my-agent.js';

// A child process costs a tsx start-up (about a second, more on a busy machine).
const CHILD_TIMEOUT_MS = 30_000;
const MODULE = fileURLToPath(new URL('../../examples/my-agent.ts', import.meta.url));

const outDir = mkdtempSync(join(tmpdir(), 'faultline-agent-crash-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

type Faults = FaultPlanInput['faults'];

function trial(
  faults: Faults,
  id: string,
  agent: () => AgentUnderTest = plainAgent,
): Promise<TrialResult> {
  return runTrial({
    scenario: partialRefund,
    agent,
    agentModule: MODULE,
    faultPlan: faultPlanSchema.parse({ id, faults }),
    runId: `${partialRefund.id}#${id}`,
    outDir,
  });
}

/**
 * The library's hostile note (partial-refund's `hostile-note` plan), planted in the first read's
 * reply: an agent without a planner has nothing to wrap it in, and in child mode the engine
 * still plants it (the world stays in this process).
 */
const HOSTILE_DOCUMENT: Faults[number] = (() => {
  const fault = partialRefund.faultPlans.find((p) => p.id === 'hostile-note')?.faults[0];
  if (fault?.kind !== 'hostile-document') throw new Error('partial-refund lost its hostile note');
  return fault;
})();

describe('a crash of any agent, after the world applied its nth write', () => {
  // Each child trial starts two processes, each loading the agent's module through tsx: the
  // hostile document rides along in the same trial rather than in two more processes.
  it.each(['in-process', 'child'] as const)(
    'fires %s for an agent with no probes beside a hostile document; the restarted agent redoes the confirmed refund',
    async (mode) => {
      const { trajectory } = await trial(
        [HOSTILE_DOCUMENT, { kind: 'crash', trigger: { on: 'applied-write', nth: 2 }, mode }],
        `applied-${mode}`,
      );
      expect(trajectory.crashes).toHaveLength(1);
      const [crash] = trajectory.crashes;
      expect(crash?.probe).toBe('applied-write');
      expect(crash?.mode).toBe(mode);
      if (mode === 'child') {
        expect(crash?.pid).toEqual(expect.any(Number));
        expect(crash?.signal).toBe('SIGKILL');
        expect(crash?.resumedPid).toEqual(expect.any(Number));
      }
      // The document is planted, nothing to wrap: neither fault is left not applicable.
      expect(trajectory.faults.notApplicable).toBeUndefined();
      expect(trajectory.faults.fired.map((f) => f.kind)).toEqual(['hostile-document', 'crash']);
      // The second write (the message) was applied and its reply never reached the agent.
      const first = trajectory.calls.filter((c) => c.incarnation === 0);
      expect(first.map((c) => c.tool)).toEqual([
        'get_order',
        'issue_refund',
        'send_customer_message',
      ]);
      expect(first.at(-1)?.effects).toHaveLength(1);
      expect(first.at(-1)?.reply).not.toBe('delivered');
      // Started over: the refund the world had confirmed is sent again.
      const again = trajectory.calls.filter((c) => c.incarnation === 1).map((c) => c.tool);
      expect(again).toContain('issue_refund');
      const { grades } = gradeRun(partialRefund, trajectory);
      expect(grades.recovery.findings.map((f) => f.code)).toContain('confirmed-step-redone');
      expect(grades.recovery.findings.map((f) => f.code)).not.toContain('fault-not-exercised');
    },
    CHILD_TIMEOUT_MS,
  );
});

describe('an in-process crash abandons the incarnation', () => {
  it('aborts its signal, closes its connection and builds the next from the factory', async () => {
    const built: AgentUnderTest[] = [];
    const signals: AbortSignal[] = [];
    const late: string[] = [];
    const factory = (): AgentUnderTest => {
      const inner = plainAgent();
      const agent: AgentUnderTest = {
        name: inner.name,
        start: async (run: AgentRun) => {
          signals.push(run.signal);
          try {
            return await inner.start(run);
          } finally {
            // What the crashed incarnation meets when it tries the world again.
            if (signals.length === 1)
              await run.client
                .callTool({ name: 'get_order', arguments: { order_id: 'ord_4' } })
                .then(
                  () => late.push('answered'),
                  () => late.push('refused'),
                );
          }
        },
      };
      built.push(agent);
      return agent;
    };
    const { trajectory } = await trial(
      [{ kind: 'crash', trigger: { on: 'applied-write', nth: 1, tool: 'issue_refund' } }],
      'abandoned',
      factory,
    );

    expect(trajectory.crashes).toHaveLength(1);
    expect(built).toHaveLength(2);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    expect(late).toEqual(['refused']);
    expect(trajectory.calls.filter((c) => c.incarnation === 0).map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
    ]);
  });

  it('maps an after-apply probe on an operation to its tool when the agent sends no operation id', async () => {
    const { trajectory } = await trial(
      [{ kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'notify' } }],
      'after-apply-mapped',
    );

    expect(trajectory.crashes.map((c) => [c.probe, c.operation])).toEqual([
      ['after-apply', 'notify'],
    ]);
    const first = trajectory.calls.filter((c) => c.incarnation === 0).map((c) => c.tool);
    expect(first.at(-1)).toBe('send_customer_message');
  });
});

describe('faults that cannot reach the agent', () => {
  it('are recorded not applicable, never fire, and never count as not exercised', async () => {
    const { trajectory } = await trial(
      [
        { kind: 'crash', trigger: { on: 'probe', probe: 'before-send', operation: 'refund' } },
        { kind: 'context-compaction', trigger: { on: 'proposal', nth: 1 } },
        { kind: 'transient', trigger: { on: 'write', nth: 2 } },
      ],
      'not-applicable',
    );

    expect(trajectory.faults.notApplicable?.map((f) => [f.index, f.kind])).toEqual([
      [0, 'crash'],
      [1, 'context-compaction'],
    ]);
    expect(trajectory.faults.fired.map((f) => f.index)).toEqual([2]);
    expect(trajectory.crashes).toEqual([]);
    const { grades } = gradeRun(partialRefund, trajectory);
    expect(grades.recovery.findings.map((f) => f.code)).not.toContain('fault-not-exercised');
    expect(grades.recovery.figures).toMatchObject({ faults: 1, fired: 1, notApplicable: 2 });
  });
});

describe('a fault the agent never reached', () => {
  // A permission revoked on a third refund: partial-refund issues one, so the trigger never comes.
  const unreached: Faults = [
    {
      kind: 'revoked-permission',
      trigger: { on: 'call', tool: 'issue_refund', nth: 3 },
      tool: 'issue_refund',
    },
  ];
  const expectBlocked = { state: 'blocked', stopReason: 'permission-lost' } as const;

  function unreachedTrial(agent: () => AgentUnderTest, id: string): Promise<TrialResult> {
    return runTrial({
      scenario: partialRefund,
      agent,
      faultPlan: faultPlanSchema.parse({ id, faults: unreached, expected: expectBlocked }),
      runId: `${partialRefund.id}#${id}`,
      outDir,
    });
  }

  it('is shown as not reached for an agent of its own, and the plan’s ending does not apply', async () => {
    const result = await unreachedTrial(plainAgent, 'unreached-plain');
    const { trajectory } = result;
    const grades = gradeRun(partialRefund, trajectory);

    expect(trajectory.faults.fired).toEqual([]);
    expect(
      trajectory.faults.notApplicable?.map((f) => [f.index, f.kind, f.reason.split(':')[0]]),
    ).toEqual([[0, 'revoked-permission', 'never reached']]);
    // The plan expected a stop because its revocation would come; it never came.
    expect(trajectory.expected.state).toBe(partialRefund.expected.state);
    expect(result.asExpected).toBe(true);
    expect(grades.grades.recovery.findings.map((f) => f.code)).not.toContain('fault-not-exercised');
    expect(grades.pass).toBe(true);
  });

  it('fails the reference family as not exercised: the library’s plans must reach it', async () => {
    const { trajectory } = await unreachedTrial(
      () => zooAgent('reference')!.create(),
      'unreached-reference',
    );
    const grades = gradeRun(partialRefund, trajectory);

    expect(trajectory.faults.notApplicable).toBeUndefined();
    expect(trajectory.expected).toMatchObject(expectBlocked);
    expect(grades.grades.recovery.findings.map((f) => f.code)).toContain('fault-not-exercised');
  });
});
