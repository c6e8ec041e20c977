import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FAULT_LAYER, type FaultPlan } from '../../faults/catalog.js';
import type { CrashProbe, ProbeInfo } from '../../runtime/crash-probe.js';
import type { RunCredential } from '../../runtime/credential.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { Operator, OperatorCommand } from '../../runtime/operator.js';
import type { AgentOutcome, AgentUnderTest } from '../agent.js';
import { ReferenceAgent } from '../agents/reference.js';
import type { Trajectory } from '../trajectory.js';
import type { RunClock } from '../run-clock.js';
import type { World } from '../world/world.js';
import { builtDistEntry } from '../built-dist.js';
import type { ChildAgentSpec, ChildRunSpec } from './protocol.js';
import { ChildSession, type SessionHost, type SessionTrial } from './child-session.js';
import { connectWorldOverStreams } from './serve-over-streams.js';

export type CrashRecord = Trajectory['crashes'][number];

/** Where a crash happened: a probe, or right after the world applied the run's nth write. */
export type CrashPoint = CrashProbe | 'applied-write';

/** How one child incarnation ended: crashed (and must be restarted), or for good. */
export type ChildEnded =
  | { kind: 'crash'; crash: CrashRecord }
  | { kind: 'done'; outcome: AgentOutcome & { hung: boolean } };

export interface ChildHostOptions {
  agent: AgentUnderTest;
  plan: FaultPlan;
  world: World<unknown>;
  clock: RunClock;
  operator: Operator;
  credential: RunCredential;
  /** The agent's module, for an agent other than the reference (see `checkChildMode`). */
  agentModule?: string | undefined;
  /** Faults not applicable to the agent (plan indices). */
  skipped: ReadonlySet<number>;
  /** The engine's deadline: its abort is forwarded to the child. */
  signal: AbortSignal;
  run: Omit<ChildRunSpec, 'credential'>;
}

export interface IncarnationOptions {
  resume: boolean;
  /** The engine's wire-fault decoration of the world's side of the connection. */
  wrapServerTransport: (transport: Transport) => Transport;
  /** Asks the fault injector whether this probe hit crashes the child. */
  crashAt: (probe: CrashProbe, info: ProbeInfo) => boolean;
  /** Resolves when the engine decided a crash (a probe hit, or `after-apply` in the world). */
  crashed: Promise<{ probe: CrashPoint; operation: string | null }>;
  /** Resolves when the run has gone quiet for good or ran out of wall time. */
  watchdog: Promise<{ kind: 'hung'; reason: string }>;
}

/** Wall time a child is given to exit on its own (after its outcome, or its self-kill). */
const EXIT_GRACE_MS = 10_000;

/** Every child still alive, so none outlives the engine's process. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

/** Where the agent of a child-mode trial comes from, beside the agent itself. */
export interface ChildModeOptions {
  /** The agent's module (absolute path): the child imports it. Not needed for the reference. */
  module?: string | undefined;
  /** Faults not applicable to the agent (plan indices): they never fire, so they never clash. */
  skipped?: ReadonlySet<number>;
  /** The run gives the agent a model (`--model`): its calls would not reach the parent's meter. */
  model?: boolean;
}

/**
 * Refuses, before anything runs, what child mode cannot do: an agent the child cannot rebuild
 * (neither the reference runtime, rebuilt from data, nor an agent module, imported), and model
 * faults on an agent with a planner (they wrap the planner, which lives in the child, with
 * state that lives in the engine). Faults not applicable to the agent are left out.
 */
export function checkChildMode(
  plan: FaultPlan,
  agent: AgentUnderTest,
  options: ChildModeOptions = {},
): ChildAgentSpec {
  const issues: string[] = [];
  const planner = agent.exposes?.planner === true;
  plan.faults.forEach((fault, i) => {
    if (options.skipped?.has(i)) return;
    if (planner && (FAULT_LAYER[fault.kind] === 'model' || fault.kind === 'hostile-document')) {
      issues.push(
        `faultPlans[${plan.id}].faults[${i}]: a ${fault.kind} fault cannot be combined with a child-process crash yet (it wraps the planner, which runs in the child); use mode "in-process" for this plan`,
      );
    }
  });
  // The child would have to rebuild run.model and forward each metered call over the link;
  // until it does, a crash there would lose the model's calls from the trajectory.
  if (options.model === true)
    issues.push(
      `agent "${agent.name}" is given a model, and a child-process crash cannot carry one yet (the child would call the model unmetered); use mode "in-process" for this plan`,
    );
  const reference = agent instanceof ReferenceAgent ? agent : undefined;
  if (!reference && options.module === undefined) {
    issues.push(
      `agent "${agent.name}": a child-process crash rebuilds the agent in a child process, from the reference runtime's data or from the agent's module; this agent has neither (give its module, or use mode "in-process")`,
    );
  }
  if (issues.length > 0) throw new InvalidInputError(`fault plan ${plan.id}`, issues);
  // The reference agent's safeguards (a mutant turns one off) go to the child as data.
  if (reference) return { name: agent.name, safeguards: reference.safeguards };
  return { name: agent.name, module: options.module ?? '' };
}

/**
 * Run from the sources, the child loads agent-process.ts through tsx; the built package's
 * agent-process.js runs on plain Node (and boots faster).
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * The script a child runs: this copy's agent-process, or, for the reference agent run from the
 * sources, the build `FAULTLINE_BUILT_DIST` names (see `builtDistEntry`). A child that imports an agent module keeps
 * the sources: in a checkout that module imports them (`../index.js`), and a build beside them
 * would load the harness twice, costing more than tsx alone.
 */
function childEntry(spec: ChildAgentSpec): string {
  const built =
    'module' in spec ? undefined : builtDistEntry(FROM_SOURCES, 'scenarios/child/agent-process.js');
  if (built !== undefined) return built;
  return fileURLToPath(
    new URL(FROM_SOURCES ? './agent-process.ts' : './agent-process.js', import.meta.url),
  );
}

function childArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) return [entry];
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href, entry];
}

/**
 * Runs a trial's agent in child processes, one per incarnation, against the world, clock,
 * operator and fault layer that stay in the engine; the protocol is described in
 * `protocol.ts`. A crash is a real SIGKILL; the next child resumes from the same SQLite store.
 */
export class ChildAgentHost implements SessionHost {
  private readonly spec: ChildAgentSpec;
  private hold: (() => void) | undefined;
  private releasing = false;
  /** Commands shipped to a child and not yet taken, in order: resent to the next child. */
  private readonly unconsumed: OperatorCommand[] = [];
  private lastCrash: CrashRecord | undefined;
  private readonly entry: string;
  /**
   * The next incarnation's process, started while this one runs so that a restart does not
   * wait for Node and tsx to boot. It loads code and waits for `init`: it has not touched the
   * store, so the resume is the same as from a cold start. One per crash the plan can cause.
   */
  private spare: ChildProcess | undefined;
  private sparesLeft: number;

  constructor(private readonly options: ChildHostOptions) {
    this.spec = checkChildMode(options.plan, options.agent, {
      module: options.agentModule,
      skipped: options.skipped,
    });
    this.entry = childEntry(this.spec);
    this.sparesLeft = options.plan.faults.filter((f) => f.kind === 'crash').length;
  }

  /** Starts a child (fresh or resuming), runs it to its end, and says how it ended. */
  async incarnation(options: IncarnationOptions): Promise<ChildEnded> {
    this.holdClock();
    const child = this.takeSpare() ?? this.spawn();
    if (this.sparesLeft > 0) {
      this.sparesLeft--;
      this.spare = this.spawn();
    }
    const pid = child.pid ?? null;
    if (this.lastCrash) this.lastCrash.resumedPid = pid;
    this.lastCrash = undefined;
    const session = new ChildSession(child, this, options.crashAt);
    let ended: ChildEnded | undefined;
    try {
      const connection = await connectWorldOverStreams(
        this.options.world,
        child.stdout as NonNullable<typeof child.stdout>,
        child.stdin as NonNullable<typeof child.stdin>,
        {
          wrapServerTransport: (t) => options.wrapServerTransport(session.countMcp(t)),
          credential: this.options.credential.token,
        },
      );
      let closed: Promise<void> | undefined;
      const close = (): Promise<void> => (closed ??= connection.close());
      try {
        ended = await this.watch(session, options, pid, close);
        return ended;
      } finally {
        await close();
      }
    } finally {
      session.dispose();
      if (session.alive) child.kill('SIGKILL');
      // The run is over (or the engine failed): no restart will come.
      if (ended?.kind !== 'crash') this.spare?.kill('SIGKILL');
    }
  }

  private spawn(): ChildProcess {
    const child = spawn(process.execPath, childArgs(this.entry), {
      stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    });
    track(child);
    // Until a session adopts it, a failed spawn or an early death is noticed on adoption.
    child.on('error', () => undefined);
    return child;
  }

  /** The spare, if it is still alive and reachable. */
  private takeSpare(): ChildProcess | undefined {
    const spare = this.spare;
    this.spare = undefined;
    if (!spare) return undefined;
    if (spare.exitCode === null && spare.signalCode === null && spare.connected) return spare;
    spare.kill('SIGKILL');
    return undefined;
  }

  private async watch(
    session: ChildSession,
    options: IncarnationOptions,
    pid: number | null,
    close: () => Promise<void>,
  ): Promise<ChildEnded> {
    const { clock } = this.options;
    const { run, credential, signal } = this.options;
    session.send(
      {
        type: 'init',
        agent: this.spec,
        run: {
          ...run,
          credential: {
            token: credential.token,
            scope: credential.scope,
            expiresAt: credential.expiresAt,
          },
        },
        resume: options.resume,
        armed: armedProbes(this.options.plan, this.options.skipped),
        aborted: signal.aborted ? reasonOf(signal.reason) : null,
      },
      true,
    );
    const first = await Promise.race([
      session.outcome.then((result) => ({ kind: 'outcome' as const, result })),
      options.crashed.then((crash) => ({ kind: 'crash' as const, crash })),
      options.watchdog,
      session.ended.then((exit) => ({ kind: 'exit' as const, exit })),
    ]);
    switch (first.kind) {
      case 'crash': {
        // Time stops at the crash. A probe crash is the child's own SIGKILL (it has the
        // answer); `after-apply` happened in the world, so the parent kills the child.
        session.freeze();
        if (first.crash.probe === 'after-apply' || first.crash.probe === 'applied-write')
          session.kill();
        // As in process: the connection goes with the process, before any reply is sent.
        await close();
        const exit = await session.end(EXIT_GRACE_MS);
        const crash: CrashRecord = {
          probe: first.crash.probe,
          at: clock.now(),
          order: clock.sequence(),
          mode: 'child',
          operation: first.crash.operation,
          pid,
          signal: exit.signal,
          resumedPid: null,
        };
        this.lastCrash = crash;
        // The clock stays held until the next child reports idle: no time passes in a restart.
        return { kind: 'crash', crash };
      }
      case 'outcome': {
        await session.end(EXIT_GRACE_MS);
        this.releaseClock();
        const { result } = first;
        return {
          kind: 'done',
          outcome: result.ok
            ? { ...result.outcome, hung: false }
            : { state: 'error', stopReason: null, detail: result.message, hung: false },
        };
      }
      case 'hung':
        session.freeze();
        session.kill();
        await session.end(EXIT_GRACE_MS);
        this.releaseClock();
        return {
          kind: 'done',
          outcome: { state: 'hung', stopReason: null, detail: first.reason, hung: true },
        };
      case 'exit':
        this.releaseClock();
        return {
          kind: 'done',
          outcome: {
            state: 'error',
            stopReason: null,
            detail: `the agent's process (pid ${pid ?? '?'}) exited without an outcome (code ${first.exit.code ?? 'none'}, signal ${first.exit.signal ?? 'none'})`,
            hung: false,
          },
        };
    }
  }

  /** What a session needs of the trial. */
  get trial(): SessionTrial {
    return this.options;
  }

  /** Ships operator commands issued since the last envelope; `all` adds those not yet taken. */
  commandsFor(all: boolean): OperatorCommand[] {
    const fresh: OperatorCommand[] = [];
    for (let i = 0; i < 100; i++) {
      const command = this.options.operator.poll();
      if (!command) break;
      fresh.push(command);
    }
    const shipped = all ? [...this.unconsumed, ...fresh] : fresh;
    this.unconsumed.push(...fresh);
    return shipped;
  }

  commandTaken(): void {
    this.unconsumed.shift();
  }

  /** Takes the clock (synchronously: before the clock can look again). */
  holdClock(): void {
    this.releasing = false;
    this.hold ??= this.options.clock.hold();
  }

  /**
   * Lets the clock go once the child is idle and nothing is in flight, after one more turn of
   * the parent's loop so that replies its handlers are about to send are counted first.
   */
  releaseWhenStill(still: () => boolean): void {
    if (!this.hold || this.releasing) return;
    this.releasing = true;
    setImmediate(() => {
      if (!this.releasing) return;
      this.releasing = false;
      if (still()) this.releaseClock();
    });
  }

  releaseClock(): void {
    this.releasing = false;
    this.hold?.();
    this.hold = undefined;
  }
}

function armedProbes(plan: FaultPlan, skipped: ReadonlySet<number>): CrashProbe[] {
  const armed = new Set<CrashProbe>();
  for (const [i, fault] of plan.faults.entries()) {
    if (
      !skipped.has(i) &&
      fault.kind === 'crash' &&
      fault.trigger.on === 'probe' &&
      fault.trigger.probe !== 'after-apply'
    )
      armed.add(fault.trigger.probe);
  }
  return [...armed];
}

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
