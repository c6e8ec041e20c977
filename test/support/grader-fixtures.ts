import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll } from 'vitest';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import type { Dimension, EventRef, Finding, FindingCode, Grade } from '../../graders/index.js';
import type { AgentRecords, AgentUnderTest } from '../../scenarios/agent.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { runTrial } from '../../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { trajectorySchema, type Trajectory } from '../../scenarios/trajectory.js';

/** An agent by zoo name, or one a test defines (a name, for the cache key, and a factory). */
export type AgentSpec = string | { readonly name: string; create(): AgentUnderTest };

/** One real trial: what ran, the trajectory graders judge, and where the agent kept its store. */
export interface Trial {
  readonly scenario: Scenario;
  readonly plan: FaultPlan;
  readonly agent: string;
  readonly trajectory: Trajectory;
  readonly storePath: string;
}

export interface Trials {
  /**
   * Runs `agent` on `scenario` under `plan` once per test file; later calls with the same
   * (scenario id, plan id, agent name) get the same trial. Each trial has its own store
   * directory, so deleting one run's store leaves the others alone.
   */
  run(scenario: Scenario | string, plan: FaultPlan | string, agent: AgentSpec): Promise<Trial>;
}

/**
 * Real trials for one test file, cached per (scenario, plan, agent), stored under a fresh
 * temporary directory that is removed after the file's tests. Call it at the top of a file.
 *
 * @example
 * ```ts
 * const trials = useTrials();
 * it('…', async () => {
 *   const { scenario, trajectory } = await trials.run('refunds/partial-refund', 'none', 'reference');
 * });
 * ```
 */
export function useTrials(): Trials {
  let root: string | undefined;
  const cache = new Map<string, Promise<Trial>>();
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'faultline-graders-'));
  });
  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    cache.clear();
  });
  return {
    run(scenarioOrId, planOrId, agent) {
      const scenario = typeof scenarioOrId === 'string' ? findScenario(scenarioOrId) : scenarioOrId;
      const plan = typeof planOrId === 'string' ? findPlan(scenario, planOrId) : planOrId;
      const entry = typeof agent === 'string' ? zooEntry(agent) : agent;
      const key = `${scenario.id}\u0000${plan.id}\u0000${entry.name}`;
      let trial = cache.get(key);
      if (!trial) {
        if (root === undefined) throw new Error('useTrials(): run() called outside a test');
        const outDir = mkdtempSync(join(root, 'run-'));
        trial = runTrial({ scenario, faultPlan: plan, agent: () => entry.create(), outDir }).then(
          ({ trajectory, storePath }) => ({
            scenario,
            plan,
            agent: entry.name,
            trajectory,
            storePath,
          }),
        );
        cache.set(key, trial);
      }
      return trial;
    },
  };
}

function zooEntry(name: string): { name: string; create(): AgentUnderTest } {
  const entry = zooAgent(name);
  if (!entry) throw new Error(`no zoo agent ${name}`);
  return entry;
}

/** A built-in scenario by id (throws naming the id when there is none). */
export function findScenario(id: string): Scenario {
  const found = BUILT_IN_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`no built-in scenario ${id}`);
  return found;
}

/** A fault plan of `scenario` by id; `none` is the empty plan. */
export function findPlan(scenario: Scenario, id: string): FaultPlan {
  if (id === NO_FAULTS.id) return NO_FAULTS;
  const found = scenario.faultPlans.find((p) => p.id === id);
  if (!found) throw new Error(`${scenario.id} has no fault plan ${id}`);
  return found;
}

/** Every finding code raised on any dimension. */
export function codes(grades: Readonly<Record<Dimension, Grade>>): Set<FindingCode> {
  return new Set(Object.values(grades).flatMap((g) => g.findings.map((f) => f.code)));
}

/** Every finding of every dimension, in dimension order. */
export function findingsOf(grades: Readonly<Record<Dimension, Grade>>): Finding[] {
  return Object.values(grades).flatMap((g) => g.findings);
}

/**
 * A deep copy of `trajectory` changed by `change`, checked against the trajectory schema so
 * a doctored run still looks like one the engine could have recorded. The original is
 * untouched.
 */
export function doctor(trajectory: Trajectory, change: (t: Trajectory) => void): Trajectory {
  const copy = structuredClone(trajectory);
  change(copy);
  const parsed = trajectorySchema.safeParse(copy);
  if (!parsed.success) {
    throw new Error(`doctored trajectory no longer fits the schema: ${parsed.error.message}`);
  }
  return copy;
}

/** The agent's white-box records of a trajectory (throws when it exposes none). */
export function recordsOf(trajectory: Trajectory): AgentRecords {
  const records = trajectory.agentRecords as AgentRecords | null;
  if (records === null) throw new Error(`${trajectory.agent} exposed no records`);
  return records;
}

/** `value`, recursively frozen: any write to it afterwards throws in strict-mode code. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
  }
  return value;
}

/**
 * What a ref of a finding fails to point at in `trajectory`, as readable strings (empty when
 * every ref resolves): a call by id, an effect by ledger seq, a fault by plan index, a crash
 * or operator entry by position, an approval token granted or presented in the run, an agent
 * event by seq.
 */
export function danglingRefs(trajectory: Trajectory, finding: Finding): string[] {
  return finding.refs.filter((ref) => !resolves(trajectory, ref)).map((ref) => JSON.stringify(ref));
}

function resolves(t: Trajectory, ref: EventRef): boolean {
  switch (ref.kind) {
    case 'call':
      return t.calls.some((c) => c.callId === ref.callId);
    case 'effect':
      return t.ledger.some((e) => e.seq === ref.seq);
    case 'fault':
      return Number.isInteger(ref.index) && ref.index >= 0 && ref.index < t.faults.planned.length;
    case 'crash':
      return Number.isInteger(ref.index) && ref.index >= 0 && ref.index < t.crashes.length;
    case 'operator':
      return Number.isInteger(ref.index) && ref.index >= 0 && ref.index < t.operator.length;
    case 'approval':
      // A token never granted is itself a finding (approval-misused): it resolves to the call
      // that presented it.
      return (
        t.approvals.some((a) => a.token === ref.token) ||
        t.calls.some((c) => c.approvalToken === ref.token)
      );
    case 'agent-event': {
      const records = t.agentRecords as AgentRecords | null;
      return records?.events.some((e) => e.seq === ref.seq) ?? false;
    }
    case 'outcome':
      return true;
  }
}

/** A trajectory with some of its calls, ledger entries and agent events left out. */
export function subTrajectory(t: Trajectory): fc.Arbitrary<Trajectory> {
  const indices = (n: number) => fc.subarray([...Array(n).keys()]);
  const events = t.agentRecords === null ? 0 : recordsOf(t).events.length;
  return fc
    .tuple(indices(t.calls.length), indices(t.ledger.length), indices(events))
    .map(([calls, ledger, kept]) =>
      doctor(t, (d) => {
        d.calls = calls.map((i) => d.calls[i]!);
        d.ledger = ledger.map((i) => d.ledger[i]!);
        if (d.agentRecords !== null) {
          const records = recordsOf(d);
          records.events = kept.map((i) => records.events[i]!);
        }
      }),
    );
}
