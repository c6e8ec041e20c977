import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { faultPlanSchema, type FaultInput, type FaultPlan } from '../../faults/catalog.js';
import { META } from '../../runtime/protocol.js';
import type { Planner } from '../../runtime/planner.js';
import type { EventRecord } from '../../runtime/records.js';
import type { WorkingContext } from '../../runtime/working-context.js';
import type { AgentResult, AgentRecords, AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { runTrial, type TrialOptions, type TrialResult } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { runScenario } from '../../scenarios/runner.js';
import { defineScenario, type Scenario, type ScenarioInput } from '../../scenarios/scenario.js';
import type { Trajectory, WireCallRecord } from '../../scenarios/trajectory.js';

/** A fresh directory for one test's run stores. */
export function tmpOut(): string {
  return mkdtempSync(join(tmpdir(), 'faultline-trial-'));
}

/** Whether a run wrote anything under `outDir` (a refused run must not). */
export function wroteStores(outDir: string): boolean {
  return existsSync(join(outDir, 'stores'));
}

/** A fault plan parsed the way a scenario file's would be. */
export function plan(id: string, ...faults: FaultInput[]): FaultPlan {
  return faultPlanSchema.parse({ id, faults });
}

/** A copy of `base` under another id with some fields replaced, validated like any scenario. */
export function variant(base: Scenario, id: string, changes: Partial<ScenarioInput>): Scenario {
  return defineScenario({ ...base, id, ...changes });
}

/**
 * partial-refund in supervised mode: every write (the refund, then the message) waits for one
 * approval, granted at once unless a fault says otherwise.
 */
export const supervisedPartial = variant(partialRefund, 'test/supervised-partial', {
  contract: { ...partialRefund.contract, autonomy: 'supervised' },
});

/** What the agent got back from one tool call, taken from its own MCP client. */
export interface Received {
  incarnation: number;
  tool: string;
  args: Record<string, unknown>;
  /** Virtual time the agent sent it. */
  sentAt: number;
  /** The result, when one reached the agent. */
  reply?: Record<string, unknown>;
  /** Why no result reached it (timeout, abort, closed connection). */
  error?: string;
}

/**
 * The reference agent, watched from the outside: every tool result as its client received it,
 * and every context its planner was handed. This is what the agent saw — independent of the
 * world's state and of the fault injector's own account.
 */
export class ObservingAgent implements AgentUnderTest {
  readonly received: Received[] = [];
  readonly contexts: WorkingContext[] = [];
  private incarnation = -1;

  constructor(private readonly inner: AgentUnderTest = new ReferenceAgent()) {}

  get name(): string {
    return this.inner.name;
  }

  get exposes(): NonNullable<AgentUnderTest['exposes']> {
    return this.inner.exposes ?? {};
  }

  start(run: AgentRun): Promise<AgentResult> {
    return this.inner.start(this.observe(run));
  }

  resume(run: AgentRun): Promise<AgentResult> {
    return (this.inner.resume ?? this.inner.start).call(this.inner, this.observe(run));
  }

  records(storePath: string, runId: string): AgentRecords | undefined {
    return this.inner.records?.(storePath, runId);
  }

  discard(): void {
    this.inner.discard?.();
  }

  /** Replies the agent received for `tool`, in order. */
  repliesFor(tool: string): Record<string, unknown>[] {
    return this.received.flatMap((r) => (r.tool === tool && r.reply ? [r.reply] : []));
  }

  private observe(run: AgentRun): AgentRun {
    this.incarnation++;
    const incarnation = this.incarnation;
    const received = this.received;
    const client = new Proxy(run.client, {
      get(target, prop) {
        if (prop === 'callTool') {
          return async (...args: Parameters<Client['callTool']>) => {
            const [params] = args;
            const entry: Received = {
              incarnation,
              tool: params.name,
              args: params.arguments ?? {},
              sentAt: run.clock.now(),
            };
            received.push(entry);
            try {
              const reply = await target.callTool(...args);
              entry.reply = reply;
              return reply;
            } catch (error) {
              entry.error = error instanceof Error ? error.message : String(error);
              throw error;
            }
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const decorate = run.decoratePlanner;
    return {
      ...run,
      client,
      ...(decorate ? { decoratePlanner: (p: Planner) => decorate(this.spy(p)) } : {}),
    };
  }

  /** Sits under the fault layer's planner wrapper, so it sees the context the planner was given. */
  private spy(planner: Planner): Planner {
    const contexts = this.contexts;
    return {
      get versions() {
        return planner.versions;
      },
      propose: (context) => {
        contexts.push(structuredClone(context));
        return planner.propose(context);
      },
    };
  }
}

export interface Observed extends TrialResult {
  agent: ObservingAgent;
  t: Trajectory;
  /** The agent's own events (the reference runtime always exposes them). */
  events: EventRecord[];
  records: AgentRecords;
}

/** Runs one trial of `scenario` under `faults` with an observed reference agent. */
export async function observe(
  scenario: Scenario,
  faultPlan: FaultPlan,
  options: Partial<Omit<TrialOptions, 'scenario' | 'faultPlan' | 'agent'>> = {},
): Promise<Observed> {
  const agent = new ObservingAgent();
  const result = await runTrial({
    scenario,
    faultPlan,
    agent: () => agent,
    outDir: options.outDir ?? tmpOut(),
    ...options,
  });
  const records = result.trajectory.agentRecords as AgentRecords;
  return { ...result, agent, t: result.trajectory, events: records.events, records };
}

/** The calls of `tool`, in wire order. */
export function callsOf(t: Trajectory, tool: string): WireCallRecord[] {
  return t.calls.filter((c) => c.tool === tool);
}

/** The one call that carries a fault of `kind` (throws when there is not exactly one). */
export function faulted(t: Trajectory, kind: string): WireCallRecord {
  const hits = t.calls.filter((c) => c.fault === kind);
  if (hits.length !== 1)
    throw new Error(`expected one call with fault ${kind}, got ${hits.length}`);
  return hits[0]!;
}

/** Ledger entries this run applied (not setup, not outside changes). */
export function runEffects(t: Trajectory): Trajectory['ledger'] {
  return t.ledger.filter((e) => e.runId === t.runId);
}

/** The typed error class of a tool result, as the agent would read it. */
export function errorClassOf(reply: Record<string, unknown> | undefined): string | undefined {
  const meta = reply?._meta as Record<string, unknown> | undefined;
  const error = meta?.[META.error] as { class?: string } | undefined;
  return error?.class;
}

/** The trajectory of one run of `scenario` under its fault plan `planId` by the zoo agent named `agent`. */
export async function runPlanUnder(
  scenario: Scenario,
  planId: string,
  agent: string,
  outDir: string,
): Promise<Trajectory> {
  const faultPlan = scenario.faultPlans.find((p) => p.id === planId);
  const entry = zooAgent(agent);
  if (!faultPlan || !entry)
    throw new Error(`no plan ${planId} in ${scenario.id}, or no agent ${agent}`);
  const result = await runScenario(scenario, { outDir, faultPlan, agent: () => entry.create() });
  return result.trajectory;
}
