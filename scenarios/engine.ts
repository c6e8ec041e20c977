import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NO_FAULTS, TRIGGERS_BY_KIND, type FaultPlan } from '../faults/catalog.js';
import { notApplicableFaults, operationOfTool } from '../faults/applicability.js';
import { FaultInjector, type FaultTarget } from '../faults/injector.js';
import { modelFaultsMiddleware } from '../faults/model-faults.js';
import { WireFaultTransport, WireLog, type WireCall } from '../faults/wire-transport.js';
import type { ModelSetup } from '../models/model-setup.js';
import { loadAiSdk } from '../models/ai-sdk.js';
import type { ModelSwitch } from '../models/run-model.js';
import { SpendCap } from '../models/spend-cap.js';
import { scrubKey } from '../models/key-scrub.js';
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
import {
  agentOutcome,
  type AgentOutcome,
  type AgentResult,
  type AgentRun,
  type AgentUnderTest,
} from './agent.js';
import { judgeAnswer } from './answer-verdict.js';
import { ChildAgentHost, checkChildMode, type CrashPoint } from './child/child-agent-host.js';
import { WORLDS } from './library/worlds.js';
import { scopeFromContract } from './scope.js';
import type { Scenario } from './scenario.js';
import type { ModelCallRecord } from './trajectory.js';
import { ScriptedOperator } from './scripted-operator.js';
import {
  TRAJECTORY_VERSION,
  type ExpectedOutcome,
  type Trajectory,
  type WireCallRecord,
} from './trajectory.js';
import type { RunClock } from './run-clock.js';
import { VirtualClock } from './virtual-clock.js';
import { RunTimers, wallNow } from './virtual-timers.js';
import { ApprovalDesk } from './world/approval-desk.js';
import type { LedgerEntry } from './world/effect-ledger.js';
import { connectWorld, openWorldTransport, type WorldTransport } from './world/serve.js';
import { ReferenceAgent } from './agents/reference.js';
import { storeFileName } from './store-file.js';
import type { World } from './world/world.js';
import { ExternalWorld } from './world/external-world.js';
import { LiveWorld } from './world/live-world.js';
import { RecordedWorld } from './world/recorded-world.js';

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
  /**
   * Builds the agent under test: called once per trial, and — for an agent module
   * (`agentModule`) — again for each incarnation after an in-process crash, so nothing the
   * crashed instance held in memory survives, as in a restarted process. A factory that
   * returns one object (a module whose default export is an agent, not a factory) has it
   * reused, after `discard`. Built-in agents are reused (the reference's in-memory store lives
   * in its instance). A user's factory may be async.
   */
  agent: () => AgentUnderTest | Promise<AgentUnderTest>;
  /**
   * The absolute path of the module the agent comes from (default export: an agent or a
   * factory). With it, a child-process crash runs the agent in a child that imports it.
   */
  agentModule?: string;
  faultPlan?: FaultPlan;
  trial?: number;
  /** Seeds are derived from it unless `seed` fixes the trial's seed outright. */
  baseSeed?: number;
  seed?: number;
  runId?: string;
  /**
   * Names the run's store file in place of the run id, for trials that share one run id (a
   * replay runs every trial under the recorded id): each keeps a store of its own.
   */
  storeKey?: string;
  outDir: string;
  /** Wall-clock limit for one trial, so a hung agent cannot hang a suite. Default 60 s. */
  wallLimitMs?: number;
  /**
   * The run's clock. Default: a fresh {@link VirtualClock}; `faultline serve` gives one that
   * follows wall time, since its agent is a live client.
   */
  clock?: RunClock;
  /** The model the agent is given as `run.model` (`--model`, or an object through the API). */
  model?: ModelSetup;
  /**
   * Builds the run's world in place of the scenario's (`WORLDS[scenario.world.name]`), with the
   * trial's seed and the run's clock: a live server (`openLiveWorld`), a cassette. The scenario's
   * `world.setup` calls are not made on an external world (its scene is its own); the engine
   * closes an external world when the run ends, however it ends.
   */
  world?: (options: { seed: number; clock: RunClock }) => World<unknown> | Promise<World<unknown>>;
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
    if (trigger.on === 'applied-write' && trigger.tool !== undefined) {
      const tool = world.tool(trigger.tool);
      if (!tool) issues.push(`${at}.trigger.tool: the world has no tool "${trigger.tool}"`);
      else if (tool.kind !== 'write')
        issues.push(
          `${at}.trigger.tool: ${trigger.tool} writes nothing, so the world never applies a write of it`,
        );
    }
    if (
      (trigger.on === 'call' || trigger.on === 'probability' || trigger.on === 'applied-write') &&
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
    // An external world's writes happen outside faultline: there is no change of its to drop.
    if (fault.kind === 'unapplied-write' && world instanceof ExternalWorld) {
      issues.push(
        `${at}.kind: world ${world.name} is answered from outside faultline, so it cannot drop a write's change (an unapplied-write fault needs a simulated world)`,
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

type Crash = { probe: CrashPoint; operation: string | null; mode: 'in-process' | 'child' };

/**
 * Runs one trial: boots the seeded world, sets the scene, serves the tools over MCP through
 * the fault layer, runs the agent — restarting it from its store after each crash — until it
 * stops or its budget runs out, and assembles the trajectory graders judge.
 */
export async function runTrial(options: TrialOptions): Promise<TrialResult> {
  const started = wallNow();
  const { scenario } = options;
  const plan = options.faultPlan ?? NO_FAULTS;
  const trial = options.trial ?? 0;
  const seed =
    options.seed ?? trialSeed(options.baseSeed ?? scenario.world.seed, scenario.id, plan.id, trial);
  const runId = options.runId ?? `${scenario.id}#${plan.id}#${trial}`;
  const clock = options.clock ?? new VirtualClock();
  const factory = WORLDS[scenario.world.name];
  if (!factory && !options.world) {
    throw new InvalidInputError(`scenario ${scenario.id}`, [
      `world.name: unknown world "${scenario.world.name}" (known: ${Object.keys(WORLDS).join(', ')})`,
    ]);
  }
  const world = options.world
    ? await options.world({ seed, clock })
    : // Checked above: one of the two is there.
      (factory as NonNullable<typeof factory>).create({ ...scenario.world.options, seed, clock });
  try {
    return await runTrialIn(world, options, { started, plan, trial, seed, runId, clock });
  } finally {
    // A live connection, a spawned server: released whatever became of the run.
    if (world instanceof ExternalWorld) await world.close();
  }
}

/** The trial's settings, fixed before its world was built. */
interface TrialSettings {
  readonly started: number;
  readonly plan: FaultPlan;
  readonly trial: number;
  readonly seed: number;
  readonly runId: string;
  readonly clock: RunClock;
}

async function runTrialIn(
  world: World<unknown>,
  options: TrialOptions,
  { started, plan, trial, seed, runId, clock }: TrialSettings,
): Promise<TrialResult> {
  const { scenario } = options;
  // The model stack (the AI SDK, its providers, cassettes, the meter) is imported only by a run
  // with a model, and here, before anything of the run is scheduled: a first import reads files,
  // and the virtual clock must not see that wait as the run gone idle.
  const modelStack =
    options.model === undefined ? undefined : await import('../models/run-model.js');
  validateFaultPlan(scenario, plan, world);
  let agent = await options.agent();
  // The AI SDK too, for the calls into it inside the run (see loadAiSdk): an agent that calls a
  // model finds it in hand, with or without --model.
  if (modelStack || agent.exposes?.model === true) await loadAiSdk();
  // Decided before the run, from the plan and what the agent exposes: never fired, never judged.
  const notApplicable = notApplicableFaults(
    plan,
    {
      probes: agent.exposes?.probes === true,
      planner: agent.exposes?.planner === true,
      model: agent.exposes?.model === true && options.model !== undefined,
      child: agent instanceof ReferenceAgent || options.agentModule !== undefined,
    },
    scenario.blueprint,
  );
  const skipped = new Set(notApplicable.map((f) => f.index));
  const childMode = plan.faults.some(
    (f, i) => f.kind === 'crash' && f.mode === 'child' && !skipped.has(i),
  );
  // Hostile documents test the gate, not the model: the agent's planner is made gullible.
  const gullible = plan.faults.some((f) => f.kind === 'hostile-document');
  // Refused before anything is written, like every other bad plan.
  if (childMode)
    checkChildMode(plan, agent, {
      module: options.agentModule,
      skipped,
      model: options.model !== undefined,
    });
  // An external world's scene is its own (a live server's state, a cassette's replies).
  const setupEffects = world instanceof ExternalWorld ? 0 : setUpWorld(world, scenario);
  const worldStart = world.snapshot();

  const storeDir = join(options.outDir, 'stores');
  mkdirSync(storeDir, { recursive: true });
  const storePath = join(storeDir, storeFileName(options.storeKey ?? runId));
  // Asked first: removing a file that is not there costs a thrown and caught error, and most
  // runs (every explored one, its store in memory) leave no file behind.
  for (const suffix of ['', '-wal', '-shm'])
    if (lstatSync(storePath + suffix, { throwIfNoEntry: false }))
      rmSync(storePath + suffix, { force: true });

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
  const injector = new FaultInjector(plan, seed, clock, target, [...skipped]);
  // The run's model, when it has one: metered into the trajectory, call by call. When the agent
  // calls it, the plan's model faults act there (on what the provider returns, the context it
  // is sent, the model called) and no longer on the agent's planner: each fires once.
  const modelCalls: ModelCallRecord[] = [];
  injector.modelFaultsAtModel = options.model !== undefined && agent.exposes?.model === true;
  // The contract's cost budget held against the metered spend (the deadline stops the run).
  const spendCap = new SpendCap(scenario.contract.budgets.costUsd, (reason) => {
    deadline.abort(new Error(reason));
  });
  const runModel =
    options.model && modelStack
      ? modelStack.openRunModel(options.model, {
          runId,
          now: () => clock.now(),
          sequence: () => clock.sequence(),
          hold: () => clock.hold(),
          incarnation: () => log.incarnation ?? 0,
          ...(injector.modelFaultsAtModel
            ? { faults: (models: ModelSwitch) => modelFaultsMiddleware(injector, models) }
            : {}),
          onCall: (call) => {
            modelCalls.push(call);
            spendCap.add(call.costUsd);
          },
        })
      : undefined;
  const agentModel =
    runModel && modelStack
      ? modelStack.wrapModel(runModel.model, spendCap.middleware())
      : undefined;
  const scripted = new ScriptedOperator(scenario.operator, world, clock, scenario.contract);
  const operator = injector.operator(scripted);
  // Approvals as tools, for agents without the operator channel: the same operator, faults and all.
  const approvals = new ApprovalDesk({
    world,
    operator,
    clock,
    runId,
    note: (kind, detail) =>
      scripted.log.push({ at: clock.now(), order: clock.sequence(), kind, detail }),
  });
  const log = new WireLog(
    () => clock.now(),
    () => clock.hold(),
    () => clock.sequence(),
  );
  const deadline = new AbortController();
  // An external world (a cassette, a live server) may end the run, and may withhold a reply,
  // which the wire then drops as it drops a lost acknowledgement.
  const external: ExternalWorld<unknown> | undefined =
    world instanceof ExternalWorld ? (world as ExternalWorld<unknown>) : undefined;
  if (external) {
    external.endRun = (reason) => {
      if (!deadline.signal.aborted) deadline.abort(new Error(reason));
    };
    external.withholdReply = (requestId) => {
      for (const t of transports) t.dropReply(requestId);
      return true;
    };
  }
  // The hard stop: twice the contract's virtual time budget, then the agent is told to stop.
  clock.setTimer(scenario.contract.budgets.virtualTimeMs * 2, () => {
    deadline.abort(new Error('virtual time limit reached'));
  });
  injector.armTimers();

  const crashes: Trajectory['crashes'] = [];
  let crashed: Deferred<Crash> = deferred();
  // The world's ends of the incarnation's connections (`run.client` and each `run.connect()`).
  let transports: WireFaultTransport[] = [];
  const wrap = (t: Transport): WireFaultTransport => {
    const wired = new WireFaultTransport(t, decide, log);
    transports.push(wired);
    return wired;
  };
  // Each effect's place in the run's one order of events, stamped as the world applies it.
  const effectOrder = new Map<number, number>();
  const unsubscribe = world.ledger.onApplied((entry) => {
    effectOrder.set(entry.seq, clock.sequence());
    // `after-apply` is the world's probe: the effect exists, and the agent must never hear of it.
    const call = log.calls.find((c) => c.callId === entry.requestId);
    // A call without an operation id (any agent but the reference) stands for the blueprint
    // operation of its tool, when only one operation calls it (see `applicability.ts`).
    const operation =
      typeof call?.meta[META.operationId] === 'string'
        ? (call.meta[META.operationId] as string)
        : call
          ? (operationOfTool(scenario.blueprint, call.tool) ?? '')
          : '';
    const probed = injector.crashAt('after-apply', { operationId: operation });
    // `applied-write`: the same point, counted in the run's writes rather than by operation.
    const applied =
      probed || !call || entry.runId !== runId
        ? undefined
        : injector.crashAfterApplied(call.tool, call.callId);
    const crash = probed ?? applied;
    if (!crash || !call) return;
    for (const t of transports) t.dropReply(call.callId);
    crashed.resolve({
      probe: probed ? 'after-apply' : 'applied-write',
      operation: probed ? operation : null,
      mode: crash.mode,
    });
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
        agentModule: options.agentModule,
        skipped,
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
  // What the metered model cost the run, across incarnations (a budget the outcome may rest on).
  let spentUsd = 0;
  for (let incarnation = 0; ; incarnation++) {
    crashed = deferred();
    transports = [];
    log.incarnation = incarnation;
    if (child) {
      const watched = watchdog(clock, log, wallLimitMs, started);
      watch = watched;
      const ended = await child
        .incarnation({
          resume: incarnation > 0,
          wrapServerTransport: wrap,
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
    const served = { wrapServerTransport: wrap, credential: credential.token, approvals };
    const connection = await connectWorld(world, served);
    const opened: WorldTransport[] = [];
    const disconnect = async (): Promise<void> => {
      await connection.close();
      await Promise.all(opened.map((o) => o.close()));
    };
    // An agent that does not read time from run.clock alone gets it for its own timers too.
    const timers = agent.exposes?.clock === true ? undefined : new RunTimers(clock);
    // Each incarnation's own signal: the deadline stops it, and so does its crash.
    const life = new AbortController();
    const onDeadline = (): void => {
      life.abort(deadline.signal.reason);
    };
    if (deadline.signal.aborted) onDeadline();
    else deadline.signal.addEventListener('abort', onDeadline, { once: true });
    const run: AgentRun = {
      runId,
      objective: scenario.contract.objective,
      contract: scenario.contract,
      blueprint: scenario.blueprint,
      input: scenario.input,
      client: connection.client,
      connect: async () => {
        const o = await openWorldTransport(world, served);
        opened.push(o);
        return o.transport;
      },
      clock,
      credential,
      storePath,
      signal: life.signal,
      operator,
      ...(runModel && agentModel ? { model: agentModel, modelSettings: runModel.settings } : {}),
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
            const answer = planned.propose(context);
            // Counted beside the answer, not in its way: the run's order of events is unchanged.
            void answer.then(
              (a) => (spentUsd += a.usage?.costUsd ?? 0),
              () => undefined,
            );
            return answer;
          },
        };
      },
    };
    // An agent that keeps nothing durable has no resume: a restart is a new start.
    const begin = (): Promise<AgentResult> =>
      incarnation === 0 || !agent.resume ? agent.start(run) : agent.resume(run);
    const attempt = timers ? timers.run(begin) : begin();
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
    // The incarnation is over: timers it left behind die with it, as in a process that ended.
    timers?.dispose();
    if (first.kind === 'crash') {
      // The incarnation is abandoned: its reply was dropped, its handles go, its later calls
      // fail on the closed connection, and its signal tells it it is over.
      deadline.signal.removeEventListener('abort', onDeadline);
      agent.discard?.();
      await disconnect();
      life.abort(new Error('the agent crashed'));
      // An agent module is built afresh, as a restarted process would import it again.
      if (options.agentModule !== undefined) agent = await options.agent();
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
    deadline.signal.removeEventListener('abort', onDeadline);
    await disconnect();
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
  // A model cassette miss is the suite's error, not the agent's failure: whatever the agent
  // made of it, the run is not graded and the suite stops with the divergence.
  const miss = runModel?.replayMiss();
  if (miss) throw miss;
  // The engine stopped the run on its spend: that is its ending, whatever the agent made of it.
  if (spendCap.stopped !== undefined && outcome.state !== 'stopped')
    outcome = {
      state: 'stopped',
      stopReason: 'budget-exhausted',
      detail: spendCap.stopped,
      hung: false,
    };

  // A fault the agent never reached tests nothing. The reference runtime and its mutants (the
  // agents that report faultline's probes) are held to the library's plans, and the recovery
  // grader fails such a fault as `fault-not-exercised`; any other agent took its own path, so
  // the fault is shown as not reached, and the plan's expected ending (which assumes its
  // faults) applies only when at least one of them fired.
  let judgedPlan = plan;
  if (agent.exposes?.probes !== true) {
    const fired = new Set(injector.fired.map((f) => f.index));
    plan.faults.forEach((fault, index) => {
      if (fired.has(index) || skipped.has(index)) return;
      notApplicable.push({
        index,
        kind: fault.kind,
        reason: `never reached: the agent's run never met its trigger (on ${fault.trigger.on})`,
      });
    });
    if (fired.size === 0 && plan.expected) judgedPlan = { ...plan, expected: undefined };
  }

  const ledger = world.ledger.entries();
  const worldEnd = world.snapshot();
  const effects = ledger.filter((e) => e.runId === runId);
  const budgets = scenario.contract.budgets;
  // Writes a live world held in shadow mode: proposals, sent to faultline and to no one else.
  const proposals = world instanceof LiveWorld && world.mode === 'shadow' ? world.proposals() : [];
  const held = new Set(proposals.map((p) => p.callId));
  const sent = log.calls.filter((c) => c.echoOf === undefined);
  const ended: RunEnd = {
    world: worldEnd,
    start: worldStart,
    effects,
    withinBudgets:
      sent.length <= budgets.toolCalls &&
      sent.filter((c) => target.writeTools.has(c.tool) && !held.has(c.callId)).length <=
        budgets.externalWrites &&
      (budgets.costUsd === 0 || Math.max(spentUsd, spendCap.spentUsd) <= budgets.costUsd),
  };
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
    expected: expectedOutcome(scenario, judgedPlan, ended),
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
    faults: {
      planned: plan.faults,
      fired: [...injector.fired],
      ...(notApplicable.length > 0 ? { notApplicable } : {}),
    },
    crashes,
    operator: [...scripted.log],
    agentRecords: agent.records?.(storePath, runId) ?? null,
    outcome,
    times: { virtualMs: clock.now(), wallMs: wallNow() - started },
    ...(world instanceof RecordedWorld ? { replay: replayOf(world) } : {}),
    ...(runModel
      ? {
          model: {
            ...runModel.info,
            promptHash: runModel.info.promptHash ?? agent.defaultPromptHash ?? null,
          },
          modelCalls,
        }
      : {}),
    // Present, even empty, whenever the world holds writes: the graders judge proposals then.
    ...(world instanceof LiveWorld && world.mode === 'shadow'
      ? {
          proposals: proposals.map((p) => ({
            ...p,
            args: structuredClone(p.args),
            evidence: [...p.evidence],
          })),
        }
      : {}),
  };
  const mismatches = checkExpected(
    scenario,
    outcome,
    worldEnd,
    effects,
    judgedPlan,
    worldStart,
    ended.withinBudgets,
  );
  // The run's key never leaves the run, whatever the model or the agent echoed of it.
  return {
    trajectory: scrubKey(options.model, trajectory),
    storePath,
    asExpected: mismatches.length === 0,
    mismatches: scrubKey(options.model, mismatches),
  };
}

/** What a run against a recorded world made of the recording. */
function replayOf(world: RecordedWorld): NonNullable<Trajectory['replay']> {
  const { cassette, match, served, remaining, divergence } = world.snapshot();
  return {
    cassette,
    match,
    served,
    remaining,
    divergence: divergence === null ? null : structuredClone(divergence),
  };
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
  clock: RunClock,
  log: WireLog,
  wallLimitMs: number,
  /** When the trial began (`wallNow()`): the limit is the trial's, across restarts. */
  began: number,
): Watchdog {
  let resolve!: (hung: { kind: 'hung'; reason: string }) => void;
  const hung = new Promise<{ kind: 'hung'; reason: string }>((r) => (resolve = r));
  // Wall time, never virtual: `check` runs inside the agent's calls, where an agent on virtual
  // timers would read its run's clock from performance.now().
  const outOfTime = () => wallNow() - began > wallLimitMs;
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
    incarnation: call.incarnation ?? call.connection,
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
      // Setup arguments may read the seeded world (`{ $ref: 'world.orders.4.total_cents' }`):
      // one snapshot for the call's arguments, taken only when one of them is not a literal.
      const entries = Object.entries(call.args);
      const scope = entries.some(([, v]) => v !== null && typeof v === 'object')
        ? { world: world.snapshot() }
        : {};
      const args = Object.fromEntries(
        entries.map(([k, v]) => [k, resolveValue(v as ValueExpr, scope)]),
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

/** How a run ended, as far as its expected outcome can depend on it. */
export interface RunEnd {
  world: unknown;
  start: unknown;
  effects: readonly LedgerEntry[];
  /** Tool calls, external writes and model spend all within the contract's budgets. */
  withinBudgets: boolean;
}

/**
 * What a run of `scenario` under `plan` should end in: the plan's override, else the scenario's
 * — completion where the scenario names a `finished` world and the run `ended` in it within
 * its budgets.
 */
export function expectedOutcome(
  scenario: Scenario,
  plan: FaultPlan = NO_FAULTS,
  ended?: RunEnd,
): ExpectedOutcome {
  const override = plan.expected;
  const finished = scenario.expected.finished;
  if (!override && finished && ended?.withinBudgets && evaluate(finished, { ...ended }))
    return { state: 'completed', stopReason: null, world: finished };
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

/**
 * Checks the expected outcome against the world itself — never the agent's account — and the
 * agent's answer, in whichever vocabulary it speaks, against the expected ending.
 */
export function checkExpected(
  scenario: Scenario,
  outcome: { state: string; stopReason: string | null },
  worldEnd: unknown,
  effects: readonly LedgerEntry[],
  plan: FaultPlan = NO_FAULTS,
  worldStart?: unknown,
  withinBudgets = false,
): string[] {
  const mismatches: string[] = [];
  const expected = expectedOutcome(scenario, plan, {
    world: worldEnd,
    start: worldStart,
    effects,
    withinBudgets,
  });
  // The agent's answer in its own words, mapped onto the expected ending (see judgeAnswer).
  const verdict = judgeAnswer(expected, outcome);
  if (verdict.kind === 'false-success' || verdict.kind === 'state-mismatch')
    mismatches.push(`state: expected ${expected.state}, got ${outcome.state}`);
  if (verdict.kind === 'stop-reason-mismatch') {
    mismatches.push(
      `stop reason: expected ${expected.stopReason ?? 'none'}, got ${outcome.stopReason ?? 'none'}`,
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
