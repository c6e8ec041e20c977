import { suiteCases, type SuiteCase } from '../../bin/suite.js';
import { FAULT_LAYER, faultSchema, type Fault } from '../../faults/catalog.js';
import { CORE_DIMENSIONS, gradeRun, type Finding, type RunGrades } from '../../graders/index.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { runScenario } from '../../scenarios/runner.js';
import type { Trajectory } from '../../scenarios/trajectory.js';

/** One run of the whole library, graded. */
export interface LibraryRun {
  readonly id: string;
  readonly case: SuiteCase;
  readonly trajectory: Trajectory;
  readonly grades: RunGrades;
  readonly mismatches: readonly string[];
}

/**
 * Runs `agent` over every scenario and fault plan of the hand-written library (the cases
 * `faultline run '!tau-retail/*'` makes, in its order), in process, and grades each run.
 */
export async function runLibrary(
  agent: () => AgentUnderTest,
  outDir: string,
): Promise<LibraryRun[]> {
  const cases = await suiteCases({
    // The τ-bench tasks of the default suite are a benchmark of their own, with their own tests.
    globs: ['!tau-retail/*'],
    agent: 'reference',
    faults: 'all',
    trials: 1,
    scenarioFiles: [],
    regressions: '',
  });
  const runs: LibraryRun[] = [];
  for (const c of cases) {
    const run = await runScenario(c.scenario, {
      outDir,
      agent,
      faultPlan: c.faultPlan,
      seed: c.seed,
      trial: c.trial,
    });
    runs.push({
      id: `${c.scenario.id}|${c.faultPlan.id}`,
      case: c,
      trajectory: run.trajectory,
      grades: gradeRun(c.scenario, run.trajectory),
      mismatches: run.mismatches,
    });
  }
  return runs;
}

/**
 * Why a run failed, finding by finding. The agent's real flaws first; then failures that are
 * not the agent's doing: a world that offers no key argument to send yet (the contract's
 * `idempotency_key`), a fault that cannot apply to an agent without faultline's hooks (a crash
 * probe inside the runtime, a model fault without a planner), a fault whose trigger only the
 * reference meets (a step number, the n-th call of a read only it makes) — and answers in the
 * small vocabulary that mean what the reference's states and stop-reason words say (a harness
 * assumption: there should be none).
 */
export const CAUSES = {
  'ignores-approvals': 'flaw',
  'skips-the-plans-checks': 'flaw',
  'retries-ambiguous-writes-blind': 'flaw',
  'ignores-operator-commands': 'flaw',
  'gives-up-where-it-could-go-on': 'flaw',
  'ignores-budgets': 'flaw',
  'keeps-nothing-durable': 'flaw',
  'no-key-argument-yet': 'contract',
  'fault-not-applicable': 'any-faults',
  'trigger-only-the-reference-meets': 'any-faults',
  'reference-vocabulary': 'harness',
  unexplained: 'unexplained',
} as const;
export type Cause = keyof typeof CAUSES;

const MODEL_OR_PROBE = (fault: Fault): boolean =>
  FAULT_LAYER[fault.kind] === 'model' || fault.trigger.on === 'probe';
const APPROVAL_FAULTS = new Set(['approval-denied', 'approval-delayed']);
const OUTCOME_CODES = new Set([
  'state-mismatch',
  'stop-reason-mismatch',
  'world-mismatch',
  'claimed-success-not-in-world',
  'misattributed-claim',
  'unsupported-claim',
  'ignored-conflict',
]);

/** The findings of the dimensions a run failed (those that decide its pass), each with why. */
export function causesOf(run: LibraryRun): { code: string; cause: Cause }[] {
  const t = run.trajectory;
  const failing: Finding[] = CORE_DIMENSIONS.flatMap((d) =>
    run.grades.grades[d].pass ? [] : run.grades.grades[d].findings,
  );
  const codes = new Set(failing.map((f) => f.code));
  const faults = t.faults.planned.map((f) => faultSchema.parse(f));
  const unfired = faults.filter((_, i) => !t.faults.fired.some((f) => f.index === i));
  const callTool = (callId: string): string | undefined =>
    t.calls.find((c) => c.callId === callId)?.tool;
  const toolOf = (f: Finding): string | undefined => {
    for (const ref of f.refs) {
      if (ref.kind === 'call') return callTool(ref.callId);
      if (ref.kind === 'effect') {
        const entry = t.ledger.find((e) => e.seq === ref.seq);
        if (entry) return callTool(entry.requestId);
      }
    }
    return undefined;
  };
  const keyed = (tool: string | undefined): boolean =>
    t.tools.some((w) => w.name === tool && w.honoursIdempotencyKey);
  const retryCause = (f: Finding): Cause =>
    keyed(toolOf(f)) ? 'no-key-argument-yet' : 'retries-ambiguous-writes-blind';
  const unfiredCause = (fault: Fault): Cause => {
    if (MODEL_OR_PROBE(fault)) return 'fault-not-applicable';
    if (
      codes.has('approval-missing') &&
      (APPROVAL_FAULTS.has(fault.kind) || fault.kind === 'cancellation')
    )
      return 'ignores-approvals';
    return 'trigger-only-the-reference-meets';
  };
  const duplicate = failing.find((f) => f.code === 'duplicate-effect');
  const outcomeCause = (code: string): Cause => {
    const expected = t.expected;
    const answer = t.outcome;
    const stopped = answer.state === 'stopped' || answer.state === 'escalated';
    // The reference's words, where the answer meant the same.
    if (code === 'state-mismatch' && stopped && expected.state !== 'completed')
      return 'reference-vocabulary';
    if (code === 'stop-reason-mismatch' && (stopped || answer.stopReason === null))
      return 'reference-vocabulary';
    if (codes.has('approval-missing')) return 'ignores-approvals';
    // A plan's own ending assumes its faults fired: one that never did decides nothing.
    const missed = unfired[0];
    if (missed && run.case.faultPlan.expected) return unfiredCause(missed);
    if (duplicate) return retryCause(duplicate);
    if (codes.has('effect-after-stop')) return 'ignores-operator-commands';
    if (codes.has('budget-exceeded')) return 'ignores-budgets';
    if (stopped && expected.state === 'completed') return 'gives-up-where-it-could-go-on';
    if (answer.state === 'completed' || answer.state === 'returned')
      return 'skips-the-plans-checks';
    return 'unexplained';
  };
  return failing.map((f) => {
    const code = f.code;
    if (OUTCOME_CODES.has(code)) return { code, cause: outcomeCause(code) };
    switch (code) {
      case 'approval-missing':
        return { code, cause: 'ignores-approvals' };
      case 'stale-write':
      case 'unverified-write':
        return { code, cause: 'skips-the-plans-checks' };
      case 'unreconciled-retry':
      case 'duplicate-effect':
        return { code, cause: retryCause(f) };
      case 'effect-after-stop':
        return { code, cause: 'ignores-operator-commands' };
      case 'budget-exceeded':
        return { code, cause: 'ignores-budgets' };
      case 'confirmed-step-redone':
        return { code, cause: 'keeps-nothing-durable' };
      case 'fault-not-exercised': {
        const ref = f.refs.find((r) => r.kind === 'fault');
        const fault = ref?.kind === 'fault' ? faults[ref.index] : undefined;
        return { code, cause: fault ? unfiredCause(fault) : 'unexplained' };
      }
      default:
        return { code, cause: 'unexplained' };
    }
  });
}
