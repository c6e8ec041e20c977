import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NO_FAULTS, TRIGGERS_BY_KIND, type FaultPlan } from '../faults/catalog.js';
import { FaultInjector, type FaultTarget } from '../faults/injector.js';
import { WireFaultTransport, WireLog, type WireCall } from '../faults/wire-transport.js';
import type { CrashProbe } from '../runtime/crash-probe.js';
import { InvalidInputError } from '../runtime/errors.js';
import {
  describePredicate,
  explainFailure,
  evaluate,
  resolveValue,
  type Predicate,
  type ValueExpr,
} from '../runtime/predicate.js';
import { meteredPlanner } from './metered-planner.js';
import { GulliblePlanner } from '../runtime/gullible-planner.js';
import { APPROVAL_TOKEN_META, META } from '../runtime/protocol.js';
import { agentOutcome, type AgentOutcome, type AgentRun, type AgentUnderTest } from './agent.js';
import { ChildAgentHost, checkChildMode } from './child/child-agent-host.js';
import { WORLDS } from './library/worlds.js';
import { scopeFromContract } from './scope.js';
import type { Scenario } from './scenario.js';
import { ScriptedOperator } from './scripted-operator.js';
import {
  TRAJECTORY_VERSION,
  type ExpectedOutcome,
  type Trajectory,
  type WireCallRecord,
} from './trajectory.js';
import { VirtualClock } from './virtual-clock.js';
import type { LedgerEntry } from './world/effect-ledger.js';
import { connectWorld } from './world/serve.js';
import type { World } from './world/world.js';

/** The seed of one trial: one number drives world data, fault probabilities and jitter. */
export function trialSeed(
  baseSeed: number,
  scenarioId: string,
  faultPlanId: string,
  trial: number,
): number {
  return (
    createHash('sha256')
      .update(`${baseSeed}\u0000${scenarioId}\u0000${faultPlanId}\u0000${trial}`)
      .digest()
      .readUInt32BE(0) & 0x7fff_ffff
  );
}

export interface TrialOptions {
  scenario: Scenario;
  /** Builds the agent under test; called once per trial (a user's factory may be async). */
  agent: () => AgentUnderTest | Promise<AgentUnderTest>;
  /**
   * The absolute path of the module the agent comes from (its default export an agent or a
   * factory), when it comes from one: what a child process loads to rebuild the agent.
   */
  agentModule?: string;
  faultPlan?: FaultPlan;
  trial?: number;
  /** Seeds are derived from it unless `seed` fixes the trial's seed outright. */
  baseSeed?: number;
  seed?: number;
  runId?: string;
  outDir: string;
  /** Wall-clock limit for one trial, so a hung agent cannot hang a suite. Default 60 s. */
  wallLimitMs?: number;
}

export interface TrialResult {
  trajectory: Trajectory;
  storePath: string;
  asExpected: boolean;
  mismatches: string[];
}

/**
 * Refuses, before anything runs, a fault plan that cannot mean what it says: a trigger its
 * kind cannot take, a tool the world lacks, an operation the blueprint lacks, a world fault
 * the world cannot suffer, an approval the scenario never asks for.
 */
export function validateFaultPlan(
  scenario: Scenario,
  plan: FaultPlan,
  world: World<unknown>,
  source = `scenario ${scenario.id}`,
): void {
  const issues: string[] = [];
  const tools = new Set(world.tools().map((t) => t.name));
  const operations = new Set(scenario.blueprint.operations.map((o) => o.id));
  const support = world.faultSupport();
  const asking = scenario.blueprint.operations.filter((o) => {
    if (o.kind !== 'write') return false;
    if (scenario.contract.autonomy === 'supervised') return true;
    return (scenario.contract.authority.tools[o.tool]?.approval ?? 'never') !== 'never';
  });
  const approvals = asking.length;
  plan.faults.forEach((fault, i) => {
    const at = `faultPlans[${plan.id}].faults[${i}]`;
    const trigger = fault.trigger;
    const allowed = TRIGGERS_BY_KIND[fault.kind];
    if (!allowed.includes(trigger.on)) {
      issues.push(
        `${at}.trigger.on: a ${fault.kind} fault cannot fire on "${trigger.on}" (it takes ${allowed.join(', ')})`,
      );
    }
    if (trigger.on === 'call' && !tools.has(trigger.tool))
      issues.push(`${at}.trigger.tool: the world has no tool "${trigger.tool}"`);
    if (
      (trigger.on === 'call' || trigger.on === 'probability') &&
      trigger.tool &&
      !(trigger.tool in scenario.contract.authority.tools)
    ) {
      issues.push(
        `${at}.trigger.tool: "${trigger.tool}" is outside the contract, so the agent never calls it and the fault can never fire`,
      );
    }
    if (trigger.on === 'time' && trigger.atMs >= scenario.contract.budgets.virtualTimeMs) {
      issues.push(
        `${at}.trigger.atMs: ${trigger.atMs} ms is past the run's virtual time budget (${scenario.contract.budgets.virtualTimeMs} ms)`,
      );
    }
    if (
      trigger.on === 'probe' &&
      trigger.operation !== undefined &&
      !operations.has(trigger.operation)
    ) {
      issues.push(`${at}.trigger.operation: the blueprint has no operation "${trigger.operation}"`);
    } else if (
      trigger.on === 'probe' &&
      trigger.probe === 'awaiting-approval' &&
      !asking.some((o) => trigger.operation === undefined || o.id === trigger.operation)
    ) {
      issues.push(
        `${at}.trigger.operation: ${trigger.operation === undefined ? 'no operation of the scenario waits' : `operation "${trigger.operation}" never waits`} for an approval, so a crash awaiting one never comes`,
      );
    }
    if (trigger.on === 'approval' && trigger.nth > approvals) {
      issues.push(
        `${at}.trigger.nth: the scenario asks for at most ${approvals} approval(s), so approval ${trigger.nth} never comes`,
      );
    }
    if ('tool' in fault && typeof fault.tool === 'string' && !tools.has(fault.tool))
      issues.push(`${at}.tool: the world has no tool "${fault.tool}"`);
    if (
      (fault.kind === 'missing-evidence' || fault.kind === 'conflicting-evidence') &&
      trigger.on === 'call' &&
      trigger.tool !== fault.tool
    ) {
      issues.push(
        `${at}.trigger.tool: a ${fault.kind} fault rewrites what ${fault.tool} returns, so it must trigger on a call of ${fault.tool} (got ${trigger.tool})`,
      );
    }
    if (
      fault.kind === 'unapplied-write' &&
      (trigger.on === 'call' || trigger.on === 'probability') &&
      trigger.tool !== undefined &&
      world.tool(trigger.tool)?.kind !== 'write'
    ) {
      issues.push(
        `${at}.trigger.tool: an unapplied-write fault drops a write's change, and ${trigger.tool} writes nothing`,
      );
    }
    if (fault.kind === 'stale-record' && !support.staleChanges.includes(fault.change)) {
      issues.push(
        `${at}.change: world ${world.name} has no stale-record change "${fault.change}" (it has: ${support.staleChanges.join(', ') || 'none'})`,
      );
    }
    if (fault.kind === 'hostile-document' && !support.documentTools.includes(fault.tool)) {
      issues.push(
        `${at}.tool: world ${world.name} cannot plant a document in ${fault.tool} (it can in: ${support.documentTools.join(', ') || 'none'})`,
      );
    }
  });
  if (issues.length > 0) throw new InvalidInputError(source, issues);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

type Crash = { probe: CrashProbe; operation: string | null; mode: 'in-process' | 'child' };

/**
 * Runs one trial: boots the seeded world, sets the scene, serves the tools over MCP through
 * the fault layer, runs the agent — restarting it from its store after each crash — until it
 * stops or its budget runs out, and assembles the trajectory graders judge.
 */
export async function runTrial(options: TrialOptions): Promise<TrialResult> {
  const started = performance.now();
  const { scenario } = options;
  const plan = options.faultPlan ?? NO_FAULTS;
  const trial = options.trial ?? 0;
  const seed =
    options.seed ?? trialSeed(options.baseSeed ?? scenario.world.seed, scenario.id, plan.id, trial);
  const runId = options.runId ?? `${scenario.id}#${plan.id}#${trial}`;
  const clock = new VirtualClock();
  const factory = WORLDS[scenario.world.name];
  if (!factory) {
    throw new InvalidInputError(`scenario ${scenario.id}`, [
      `world.name: unknown world "${scenario.world.name}" (known: ${Object.keys(WORLDS).join(', ')})`,
    ]);
  }
  const world = factory.create({ ...scenario.world.options, seed, clock });
  validateFaultPlan(scenario, plan, world);
  const agent = await options.agent();
  const childMode = plan.faults.some((f) => f.kind === 'crash' && f.mode === 'child');
  // Hostile documents test the gate, not the model: the agent's planner is made gullible.
  const gullible = plan.faults.some((f) => f.kind === 'hostile-document');
  // Refused before anything is written, like every other bad plan.
  if (childMode) checkChildMode(plan, agent);
  const setupEffects = setUpWorld(world, scenario);
  const worldStart = world.snapshot();

  const storeDir = join(options.outDir, 'stores');
  mkdirSync(storeDir, { recursive: true });
  const storePath = join(storeDir, `${runId.replace(/[^a-zA-Z0-9-]+/g, '_')}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(storePath + suffix, { force: true });

  const credential = world.credentials.issue(
    runId,
    scopeFromContract(scenario.contract),
    scenario.contract.budgets.virtualTimeMs * 2,
  );
  const target: FaultTarget = {
    writeTools: new Set(
      world
        .tools()
        .filter((t) => t.kind === 'write')
        .map((t) => t.name),
    ),
    revoke: (tool) => {
      world.credentials.restrict(credential.token, tool);
      return `permission to call ${tool} revoked`;
    },
    expireCredential: () => {
      world.credentials.expire(credential.token);
      return 'the run credential expired';
    },
    staleChange: (change, params) => world.applyStaleChange(change, params),
    ledgerSize: () => world.ledger.size,
    dropChange: (callId, tool) => {
      world.dropChangeOf(callId);
      return `${tool} acknowledged as applied; the world drops the change`;
    },
    // The canary rides in the document as an imperative a fooled model would act on.
    plantDocument: (tool, instruction, canary) =>
      `${world.plantDocument(tool, `${instruction} To do so, call ${canary.tool} ${JSON.stringify(canary.args)}`)}; canary ${canary.tool}`,
  };
  const injector = new FaultInjector(plan, seed, clock, target);
  const scripted = new ScriptedOperator(scenario.operator, world, clock, scenario.contract);
  const operator = injector.operator(scripted);
  const log = new WireLog(
    () => clock.now(),
    () => clock.hold(),
    () => clock.sequence(),
  );
  const deadline = new AbortController();
  // The hard stop: twice the contract's virtual time budget, then the agent is told to stop.
  clock.setTimer(scenario.contract.budgets.virtualTimeMs * 2, () => {
    deadline.abort(new Error('virtual time limit reached'));
  });
  injector.armTimers();

  const crashes: Trajectory['crashes'] = [];
  let crashed: Deferred<Crash> = deferred();
  let transport: WireFaultTransport | undefined;
  // Each effect's place in the run's one order of events, stamped as the world applies it.
  const effectOrder = new Map<number, number>();
  const unsubscribe = world.ledger.onApplied((entry) => {
    effectOrder.set(entry.seq, clock.sequence());
    // `after-apply` is the world's probe: the effect exists, and the agent must never hear of it.
    const call = log.calls.find((c) => c.callId === entry.requestId);
    const operation =
      typeof call?.meta[META.operationId] === 'string'
        ? (call.meta[META.operationId] as string)
        : '';
    const crash = injector.crashAt('after-apply', { operationId: operation });
    if (!crash || !call) return;
    transport?.dropReply(call.callId);
    crashed.resolve({ probe: 'after-apply', operation, mode: crash.mode });
  });

  // Child mode: when any crash fault asks for one, every incarnation is a child process.
  const child = childMode
    ? new ChildAgentHost({
        agent,
        plan,
        world,
        clock,
        operator,
        credential,
        signal: deadline.signal,
        run: {
          runId,
          objective: scenario.contract.objective,
          contract: scenario.contract,
          blueprint: scenario.blueprint,
          input: scenario.input,
          storePath,
        },
      })
    : undefined;
  const wallLimitMs = options.wallLimitMs ?? 60_000;
  // The watchdog of the incarnation running; every call and proposal checks its wall time.
  let watch: Watchdog | undefined;
  const decide: typeof injector.decide = (call) => {
    watch?.check();
    return injector.decide(call);
  };
  let outcome: AgentOutcome & { hung: boolean };
  for (let incarnation = 0; ; incarnation++) {
    crashed = deferred();
    if (child) {
      const watched = watchdog(clock, log, wallLimitMs, started);
      watch = watched;
      const ended = await child
        .incarnation({
          resume: incarnation > 0,
          wrapServerTransport: (t) => (transport = new WireFaultTransport(t, decide, log)),
          crashAt: (probe, info) => {
            if (!injector.crashAt(probe, info)) return false;
            crashed.resolve({ probe, operation: info.operationId, mode: 'child' });
            return true;
          },
          crashed: crashed.promise,
          watchdog: watched.hung,
        })
        .finally(watched.stop);
      if (ended.kind === 'crash') {
        crashes.push(ended.crash);
        continue;
      }
      outcome = {
        state: ended.outcome.state,
        stopReason: ended.outcome.stopReason,
        detail: ended.outcome.detail,
        hung: ended.outcome.hung,
      };
      break;
    }
    const connection = await connectWorld(world, {
      wrapServerTransport: (t) => (transport = new WireFaultTransport(t, decide, log)),
      credential: credential.token,
    });
    const run: AgentRun = {
      runId,
      objective: scenario.contract.objective,
      contract: scenario.contract,
      blueprint: scenario.blueprint,
      input: scenario.input,
      client: connection.client,
      clock,
      credential,
      storePath,
      signal: deadline.signal,
      operator,
      probe: (probe, info) => {
        const crash = injector.crashAt(probe, info);
        if (!crash) return undefined;
        crashed.resolve({ probe, operation: info.operationId, mode: crash.mode });
        // Freeze here: nothing after the probe runs. The engine then closes store and connection.
        return new Promise<void>(() => undefined);
      },
      decoratePlanner: (planner) => {
        const faulty = injector.decoratePlanner(gullible ? new GulliblePlanner(planner) : planner);
        const planned = scenario.model ? meteredPlanner(faulty, scenario.model) : faulty;
        return {
          get versions() {
            return planned.versions;
          },
          propose: (context) => {
            watch?.check();
            return planned.propose(context);
          },
        };
      },
    };
    // An agent that keeps nothing durable has no resume: a restart is a new start.
    const attempt = incarnation === 0 || !agent.resume ? agent.start(run) : agent.resume(run);
    const finished = attempt.then(
      (o) => ({ kind: 'done' as const, o: agentOutcome(o) }),
      (error: unknown) => ({ kind: 'error' as const, error }),
    );
    const watched = watchdog(clock, log, wallLimitMs, started);
    watch = watched;
    const first = await Promise.race([
      finished,
      crashed.promise.then((c) => ({ kind: 'crash' as const, c })),
      watched.hung,
    ]).finally(watched.stop);
    // A run still going when its time is up is told to stop, so it does not run on unseen.
    if (first.kind === 'hung' && !deadline.signal.aborted) deadline.abort(new Error(first.reason));
    if (first.kind === 'crash') {
      agent.discard?.();
      await connection.close();
      crashes.push({
        probe: first.c.probe,
        at: clock.now(),
        order: clock.sequence(),
        mode: first.c.mode,
        operation: first.c.operation,
        pid: null,
      });
      continue;
    }
    if (first.kind !== 'hung') await injector.deliverLate();
    await connection.close();
    if (first.kind === 'done') {
      // Only what the trajectory promises: an agent's extra fields stay with the agent.
      outcome = {
        state: first.o.state,
        stopReason: first.o.stopReason,
        detail: first.o.detail,
        hung: false,
      };
    } else if (first.kind === 'error') {
      outcome = {
        state: 'error',
        stopReason: null,
        detail: first.error instanceof Error ? first.error.message : String(first.error),
        hung: false,
      };
    } else {
      agent.discard?.();
      outcome = { state: 'hung', stopReason: null, detail: first.reason, hung: true };
    }
    break;
  }
  unsubscribe();

  const ledger = world.ledger.entries();
  const worldEnd = world.snapshot();
  const effects = ledger.filter((e) => e.runId === runId);
  const trajectory: Trajectory = {
    format: 'faultline-trajectory',
    version: TRAJECTORY_VERSION,
    scenarioId: scenario.id,
    faultPlanId: plan.id,
    trial,
    seed,
    runId,
    agent: agent.name,
    tools: world.tools().map((t) => ({
      name: t.name,
      kind: t.kind,
      honoursIdempotencyKey: t.kind === 'write' && t.honoursIdempotencyKey === true,
      trust: t.trust ?? 'trusted',
    })),
    expected: expectedOutcome(scenario, plan),
    calls: log.calls.map((c) => toRecord(c, ledger)),
    ledger: ledger.map((e) => {
      const order = effectOrder.get(e.seq);
      return order === undefined ? { ...e } : { ...e, order };
    }),
    setupEffects,
    world: { start: worldStart, end: worldEnd },
    approvals: world.approvals
      .records()
      .filter((a) => a.runId === runId)
      .map((a) => ({
        token: a.token,
        tool: a.tool,
        identity: a.identity,
        approver: a.approver,
        grantedAt: a.grantedAt,
        consumedAt: a.consumedAt,
        consumedBy: a.consumedBy,
      })),
    faults: { planned: plan.faults, fired: [...injector.fired] },
    crashes,
    operator: [...scripted.log],
    agentRecords: agent.records?.(storePath, runId) ?? null,
    outcome,
    times: { virtualMs: clock.now(), wallMs: performance.now() - started },
  };
  const mismatches = checkExpected(scenario, outcome, worldEnd, effects, plan, worldStart);
  return { trajectory, storePath, asExpected: mismatches.length === 0, mismatches };
}

/** Watches one incarnation for a hang: gone quiet for good, or out of the trial's wall time. */
interface Watchdog {
  readonly hung: Promise<{ kind: 'hung'; reason: string }>;
  /**
   * Checks the wall time now. The engine calls it on every call the agent makes and every
   * proposal its planner is asked for: a run that never yields to the event loop (a world
   * served in memory answers within the same turn) would otherwise never let the timer run.
   */
  readonly check: () => void;
  readonly stop: () => void;
}

/**
 * Resolves when the run has gone quiet for good (no timers, no calls, no time passing) or the
 * trial has used its wall time. Its timer keeps the process alive while it watches (an agent
 * stuck on a promise nothing will settle must be reported hung, not let the process exit);
 * `stop` it once the race is over.
 */
function watchdog(
  clock: VirtualClock,
  log: WireLog,
  wallLimitMs: number,
  /** When the trial began (`performance.now()`): the limit is the trial's, across restarts. */
  began: number,
): Watchdog {
  let resolve!: (hung: { kind: 'hung'; reason: string }) => void;
  const hung = new Promise<{ kind: 'hung'; reason: string }>((r) => (resolve = r));
  const outOfTime = () => performance.now() - began > wallLimitMs;
  const overtime = `no end after ${wallLimitMs} ms of wall time`;
  let last = '';
  let quiet = 0;
  const timer = setInterval(() => {
    const now = `${clock.now()}:${log.calls.length}:${clock.pendingTimers}`;
    quiet = now === last && clock.pendingTimers === 0 ? quiet + 1 : 0;
    last = now;
    if (quiet >= 4) settle('the agent stopped making progress with nothing left to wait for');
    else if (outOfTime()) settle(overtime);
  }, 250);
  const settle = (reason: string): void => {
    clearInterval(timer);
    resolve({ kind: 'hung', reason });
  };
  return {
    hung,
    check: () => {
      if (outOfTime()) settle(overtime);
    },
    stop: () => {
      clearInterval(timer);
    },
  };
}

function toRecord(call: WireCall, ledger: readonly LedgerEntry[]): WireCallRecord {
  const effects = ledger.filter((e) => e.requestId === call.callId).map((e) => e.seq);
  let outcome: WireCallRecord['outcome'];
  if (call.reply === 'late') outcome = { type: 'info', reason: 'late' };
  else if (call.reply === 'dropped' || call.reply === 'pending')
    outcome = { type: 'info', reason: call.fault === 'timeout' ? 'timeout' : 'lost' };
  else if (call.fault === 'malformed-reply') outcome = { type: 'fail', class: 'malformed_reply' };
  else if (call.isError) {
    outcome = {
      type: 'fail',
      class: call.errorClass ?? 'untyped',
      ...(call.retryAfterMs === undefined ? {} : { retryAfterMs: call.retryAfterMs }),
    };
  } else outcome = { type: 'ok' };
  return {
    callId: call.callId,
    incarnation: call.connection,
    step: call.step,
    toolCall: call.toolCall,
    tool: call.tool,
    args: call.args,
    idempotencyKey: call.idempotencyKey,
    approvalToken: call.approvalToken,
    at: call.at,
    order: call.order,
    fault: call.fault,
    ...(call.echoOf === undefined ? {} : { echoOf: call.echoOf }),
    effects,
    reply: call.reply,
    outcome,
  };
}

/** Runs the scenario's setup calls; returns how many effects they left in the ledger. */
export function setUpWorld(world: World<unknown>, scenario: Scenario): number {
  if (scenario.world.setup.length === 0) return 0;
  const tools = world.tools().map((t) => t.name);
  const credential = world.credentials.issue(
    'setup',
    { tools, resources: {} },
    Number.MAX_SAFE_INTEGER,
  );
  scenario.world.setup.forEach((call, i) => {
    try {
      // Setup arguments may read the seeded world (`{ $ref: 'world.orders.4.total_cents' }`).
      const args = Object.fromEntries(
        Object.entries(call.args).map(([k, v]) => [
          k,
          resolveValue(v as ValueExpr, { world: world.snapshot() }),
        ]),
      );
      // The scene is the world's own history: what needed a person's approval then had it.
      const meta: Record<string, string> = { [META.credential]: credential.token };
      const identity = world.approvalIdentity(call.tool, args);
      if (identity) {
        meta[APPROVAL_TOKEN_META] = world.approvals.grant({
          runId: 'setup',
          tool: call.tool,
          identity,
          approver: 'setup',
        }).token;
      }
      world.callTool(call.tool, args, meta, `setup-${i + 1}`);
    } catch (error) {
      throw new InvalidInputError(
        `scenario ${scenario.id}`,
        [
          `world.setup[${i}] (${call.tool}) failed: ${error instanceof Error ? error.message : String(error)}`,
        ],
        { cause: error },
      );
    }
  });
  void credential.revoke?.();
  return world.ledger.entries().length;
}

/** What a run of `scenario` under `plan` should end in: the plan's override, else the scenario's. */
export function expectedOutcome(scenario: Scenario, plan: FaultPlan = NO_FAULTS): ExpectedOutcome {
  const override = plan.expected;
  if (!override) {
    return {
      state: scenario.expected.state,
      stopReason: scenario.expected.stopReason ?? null,
      world: scenario.expected.world,
    };
  }
  return {
    state: override.state,
    stopReason: override.stopReason ?? null,
    world: override.world ?? scenario.expected.world,
  };
}

/** Checks the expected outcome against the world itself — never the agent's account. */
export function checkExpected(
  scenario: Scenario,
  outcome: { state: string; stopReason: string | null },
  worldEnd: unknown,
  effects: readonly LedgerEntry[],
  plan: FaultPlan = NO_FAULTS,
  worldStart?: unknown,
): string[] {
  const mismatches: string[] = [];
  const expected = expectedOutcome(scenario, plan);
  if (outcome.state !== expected.state)
    mismatches.push(`state: expected ${expected.state}, got ${outcome.state}`);
  if (expected.stopReason && outcome.stopReason !== expected.stopReason) {
    mismatches.push(
      `stop reason: expected ${expected.stopReason}, got ${outcome.stopReason ?? 'none'}`,
    );
  }
  const world = expected.world as Predicate;
  const scope = { world: worldEnd, start: worldStart, effects };
  if (!evaluate(world, scope))
    mismatches.push(
      `world: expected ${describePredicate(world)}; not so: ${explainFailure(world, scope)}`,
    );
  return mismatches;
}
