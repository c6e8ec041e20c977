import { createHash } from 'node:crypto';
import type { Clock } from '../runtime/clock.js';
import type { CrashProbe, ProbeInfo } from '../runtime/crash-probe.js';
import type {
  ApprovalDecision,
  ApprovalRequest,
  Operator,
  OperatorCommand,
} from '../runtime/operator.js';
import type { Planner } from '../runtime/planner.js';
import { META } from '../runtime/protocol.js';
import type { OperationView, ResumePacket, WorkingContext } from '../runtime/working-context.js';
import type { Fault, FaultPlan, Trigger } from './catalog.js';
import type { DueModelFault } from './model-faults.js';
import type { WireAction, WireCall } from './wire-transport.js';

/** What the injector needs of the world, kept to an interface so faults stay world-agnostic. */
export interface FaultTarget {
  /** Tools that change the world (for the `first-write` trigger). */
  writeTools: ReadonlySet<string>;
  revoke(tool: string): string;
  expireCredential(): string;
  staleChange(change: string, params: Record<string, unknown>): string;
  /** How many entries the world's effect ledger holds, so a fault can say which it made. */
  ledgerSize?(): number;
  plantDocument(
    tool: string,
    instruction: string,
    canary: { tool: string; args: Record<string, unknown> },
  ): string;
  /** Makes the world acknowledge the write of call `callId` and drop its change; says so. */
  dropChange(callId: string, tool: string): string;
}

export interface FiredFault {
  index: number;
  kind: string;
  at: number;
  /** Its place in the run's one order of events, when the clock keeps one (`Clock.sequence`). */
  order?: number;
  callId: string | null;
  detail: string;
  /** Ledger seqs of the effects the fault made in the world (a colleague's change, say). */
  effects?: number[];
}

type Decision = { action?: WireAction };

const errorResult = (
  cls: string,
  message: string,
  retryAfterMs?: number,
): Record<string, unknown> => ({
  isError: true,
  content: [{ type: 'text', text: message }],
  _meta: {
    [META.error]:
      retryAfterMs === undefined ? { class: cls, message } : { class: cls, message, retryAfterMs },
  },
});

/**
 * Turns a fault plan into hooks on every layer — a wire decider, an operator and a planner
 * wrapper, a crash-probe handler, and timers on the virtual clock — and records each fault
 * as it fires. Seeded: the same plan and seed fire the same faults at the same points.
 */
export class FaultInjector {
  readonly fired: FiredFault[] = [];
  private readonly done = new Set<number>();
  private readonly probeHits = new Map<number, number>();
  private approvals = 0;
  private proposals = 0;
  private modelCalls = 0;
  /**
   * Whether the plan's model faults act at the run's model (set by the engine when the run has
   * a model its agent calls): then the planner wrapper passes proposals through untouched, so
   * no model fault fires twice.
   */
  modelFaultsAtModel = false;
  private unavailableUntil = -1;
  private cancelRequested: string | undefined;
  private writesSeen = 0;
  /** Requests of the run whose write the world applied, and how many there were per tool. */
  private readonly applied = new Set<string>();
  private readonly appliedByTool = new Map<string, number>();
  /** When the last delayed request reaches the world. */
  private lateUntil = -1;
  private random: () => number;

  constructor(
    readonly plan: FaultPlan,
    private readonly seed: number,
    private readonly clock: Clock,
    private readonly target: FaultTarget,
    /** Faults of the plan that cannot reach this agent (see `applicability.ts`): never fired. */
    notApplicable: readonly number[] = [],
  ) {
    this.random = seededRandom(`${seed}:${plan.id}`);
    for (const index of notApplicable) this.done.add(index);
  }

  /** Arms time-triggered faults; call once, when the run starts. */
  armTimers(): void {
    this.plan.faults.forEach((fault, index) => {
      if (fault.trigger.on !== 'time') return;
      this.clock.setTimer(fault.trigger.atMs, () => {
        this.fireTimed(fault, index);
      });
    });
  }

  private fireTimed(fault: Fault, index: number): void {
    if (this.done.has(index)) return;
    switch (fault.kind) {
      case 'cancellation':
        this.cancelRequested = fault.reason;
        this.record(index, fault, null, `operator cancels: ${fault.reason}`);
        return;
      case 'revoked-permission':
      case 'expired-credential':
      case 'stale-record':
      case 'hostile-document':
        this.recordWorldFault(index, fault, null);
        return;
      case 'unavailable':
        this.unavailableUntil = this.clock.now() + fault.windowMs;
        this.record(index, fault, null, `dependency unavailable for ${fault.windowMs} ms`);
        return;
      default:
        return;
    }
  }

  /** The wire decider: world faults triggered by this call fire first, then wire faults. */
  decide = (call: Readonly<WireCall>): WireAction | undefined => {
    const isWrite = this.target.writeTools.has(call.tool);
    if (isWrite) this.writesSeen++;
    let decision: Decision = {};
    this.plan.faults.forEach((fault, index) => {
      if (
        decision.action ||
        this.done.has(index) ||
        !this.callMatches(fault.trigger, call, isWrite)
      )
        return;
      if (fault.kind === 'cancellation') {
        this.cancelRequested = fault.reason;
        this.record(
          index,
          fault,
          call.callId,
          `operator cancels after ${call.tool}: ${fault.reason}`,
        );
        return;
      }
      decision = this.wireFault(fault, index, call);
    });
    if (!decision.action && this.clock.now() < this.unavailableUntil) {
      return {
        kind: 'respond',
        fault: 'unavailable',
        result: errorResult('unavailable', 'dependency unavailable'),
      };
    }
    return decision.action;
  };

  private callMatches(trigger: Trigger, call: Readonly<WireCall>, isWrite: boolean): boolean {
    switch (trigger.on) {
      case 'call':
        return call.tool === trigger.tool && call.toolCall === trigger.nth;
      case 'step':
        return call.step === trigger.step;
      case 'first-write':
        return isWrite && this.writesSeen === 1;
      case 'write':
        return isWrite && this.writesSeen === trigger.nth;
      case 'probability':
        return (
          (trigger.tool === undefined || trigger.tool === call.tool) && this.random() < trigger.p
        );
      default:
        return false;
    }
  }

  private wireFault(fault: Fault, index: number, call: Readonly<WireCall>): Decision {
    const once = fault.trigger.on !== 'probability';
    const fire = (detail: string, action?: WireAction): Decision => {
      this.record(index, fault, call.callId, detail, once);
      return action ? { action } : {};
    };
    const f = fault.kind;
    switch (fault.kind) {
      case 'timeout':
        return fire(`${call.tool} never reaches the world; no reply`, {
          kind: 'drop-request',
          fault: f,
        });
      case 'lost-ack':
        return fire(`${call.tool} applied; its reply is lost`, { kind: 'drop-reply', fault: f });
      case 'transient':
        return fire(`${call.tool} fails transiently`, {
          kind: 'respond',
          fault: f,
          result: errorResult('transient', fault.message),
        });
      case 'rate-limit':
        return fire(`${call.tool} rate-limited for ${fault.retryAfterMs} ms`, {
          kind: 'respond',
          fault: f,
          result: errorResult('rate_limited', 'rate limit exceeded', fault.retryAfterMs),
        });
      case 'unavailable':
        this.unavailableUntil = this.clock.now() + fault.windowMs;
        return fire(`${call.tool}: dependency unavailable for ${fault.windowMs} ms`, {
          kind: 'respond',
          fault: f,
          result: errorResult('unavailable', 'dependency unavailable'),
        });
      case 'malformed-reply':
        return fire(`${call.tool} applied; its reply breaks the output schema`, {
          kind: 'rewrite-reply',
          fault: f,
          rewrite: () => ({
            content: [{ type: 'text', text: '{"garbled":true}' }],
            structuredContent: { garbled: true },
          }),
        });
      case 'duplicate-delivery':
        return fire(`${call.tool} delivered to the world twice`, {
          kind: 'deliver-twice',
          fault: f,
        });
      case 'late-reply':
        return fire(`${call.tool} reaches the world ${fault.delayMs} ms late`, {
          kind: 'delay-request',
          fault: f,
          schedule: (deliver) => {
            const at = this.clock.now() + fault.delayMs;
            this.lateUntil = Math.max(this.lateUntil, at);
            this.clock.setTimer(fault.delayMs, deliver);
          },
        });
      case 'missing-evidence':
        if (call.tool !== fault.tool) return {};
        return fire(`${call.tool} returns nothing`, {
          kind: 'rewrite-reply',
          fault: f,
          rewrite: emptyResult,
        });
      case 'conflicting-evidence':
        if (call.tool !== fault.tool) return {};
        return fire(`${call.tool} returns ${JSON.stringify(fault.replace)}`, {
          kind: 'rewrite-reply',
          fault: f,
          rewrite: (result) => replaceFields(result, fault.replace),
        });
      case 'unapplied-write':
        // Only a write has a change to drop; a read it lands on goes through, and it waits.
        if (!this.target.writeTools.has(call.tool)) return {};
        return fire(this.target.dropChange(call.callId, call.tool), { kind: 'pass', fault: f });
      case 'revoked-permission':
      case 'expired-credential':
      case 'stale-record':
      case 'hostile-document':
        // The world changes before it sees this call; the call carries the mark.
        this.recordWorldFault(index, fault, call.callId, once);
        return { action: { kind: 'pass', fault: f } };
      default:
        return {};
    }
  }

  /** Makes the world change a fault names and records it, with the effects it made. */
  private recordWorldFault(index: number, fault: Fault, callId: string | null, once = true): void {
    const before = this.target.ledgerSize?.();
    const detail = this.applyWorldFault(fault);
    const after = this.target.ledgerSize?.();
    const effects: number[] = [];
    if (before !== undefined && after !== undefined)
      for (let seq = before + 1; seq <= after; seq++) effects.push(seq);
    this.record(index, fault, callId, detail, once, effects);
  }

  /**
   * Makes the world change a fault names, and says what happened. A change the world refuses in
   * the state it has reached (withdrawing a claim already paid, say) is recorded as not made:
   * the fault fired, and the world is as it was.
   */
  private applyWorldFault(fault: Fault): string {
    try {
      return this.changeWorld(fault);
    } catch (error) {
      return `the world refused the change: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private changeWorld(fault: Fault): string {
    switch (fault.kind) {
      case 'revoked-permission':
        return this.target.revoke(fault.tool);
      case 'expired-credential':
        return this.target.expireCredential();
      case 'stale-record':
        return this.target.staleChange(fault.change, fault.params);
      case 'hostile-document':
        return this.target.plantDocument(fault.tool, fault.instruction, fault.canary);
      default:
        return '';
    }
  }

  /** Wraps the scenario's operator with the plan's operator faults. */
  operator(inner: Operator): Operator {
    return {
      requestApproval: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
        this.approvals++;
        for (const [index, fault] of this.plan.faults.entries()) {
          if (
            this.done.has(index) ||
            fault.trigger.on !== 'approval' ||
            fault.trigger.nth !== this.approvals
          )
            continue;
          if (fault.kind === 'approval-denied') {
            this.record(index, fault, null, `approval for ${request.tool} denied: ${fault.reason}`);
            return {
              decision: 'denied',
              approver: 'fault:approval-denied',
              reason: fault.reason,
              at: this.clock.now(),
            };
          }
          if (fault.kind === 'approval-delayed') {
            this.record(
              index,
              fault,
              null,
              `approval for ${request.tool} delayed ${fault.delayMs} ms`,
            );
            await this.clock.sleep(fault.delayMs);
          }
          if (fault.kind === 'cancellation') {
            this.cancelRequested = fault.reason;
            this.record(
              index,
              fault,
              null,
              `operator cancels while ${request.tool} awaits approval`,
            );
          }
        }
        return inner.requestApproval(request);
      },
      poll: (): OperatorCommand | undefined => {
        if (this.cancelRequested !== undefined) {
          const reason = this.cancelRequested;
          this.cancelRequested = undefined;
          return { kind: 'cancel', reason };
        }
        return inner.poll();
      },
      nextCommand: () => inner.nextCommand(),
    };
  }

  /**
   * Counts one call of the run's model and returns the model faults its trigger names
   * (`{ on: 'proposal', nth }` counts model calls at this layer). For `model-faults.ts`.
   */
  dueAtModelCall = (): { call: number; due: DueModelFault[] } => {
    const call = ++this.modelCalls;
    const due: DueModelFault[] = [];
    this.plan.faults.forEach((fault, index) => {
      if (this.done.has(index) || fault.trigger.on !== 'proposal' || fault.trigger.nth !== call)
        return;
      if (
        fault.kind === 'invalid-output' ||
        fault.kind === 'context-compaction' ||
        fault.kind === 'model-swap'
      )
        due.push({ index, fault });
    });
    return { call, due };
  };

  /** Records a model fault the model layer fired. */
  fireModelFault = (index: number, detail: string): void => {
    const fault = this.plan.faults[index];
    if (fault) this.record(index, fault, null, detail);
  };

  /** Wraps the agent's planner with the plan's model faults (unless the run's model has them). */
  decoratePlanner = (inner: Planner): Planner => {
    if (this.modelFaultsAtModel) return inner;
    let versions = inner.versions;
    const propose = async (context: WorkingContext): ReturnType<Planner['propose']> => {
      this.proposals++;
      let ctx = context;
      for (const [index, fault] of this.plan.faults.entries()) {
        if (
          this.done.has(index) ||
          fault.trigger.on !== 'proposal' ||
          fault.trigger.nth !== this.proposals
        )
          continue;
        if (fault.kind === 'invalid-output') {
          this.record(index, fault, null, `proposal ${this.proposals} is not a valid proposal`);
          return { proposal: { kind: 'act', tool: 42, note: 'garbled model output' } };
        }
        if (fault.kind === 'context-compaction') {
          this.record(index, fault, null, `context compacted before proposal ${this.proposals}`);
          ctx = compact(context);
        }
        if (fault.kind === 'model-swap') {
          versions = { model: fault.model, prompt: fault.prompt ?? inner.versions.prompt };
          this.record(
            index,
            fault,
            null,
            `model swapped to ${fault.model} at proposal ${this.proposals}`,
          );
        }
      }
      return inner.propose(ctx);
    };
    return {
      get versions() {
        return versions;
      },
      propose,
    };
  };

  /** True when this probe hit is the one a crash fault names. */
  crashAt(
    probe: CrashProbe,
    info: Pick<ProbeInfo, 'operationId'>,
  ): { index: number; mode: 'in-process' | 'child' } | undefined {
    for (const [index, fault] of this.plan.faults.entries()) {
      if (fault.kind !== 'crash' || this.done.has(index) || fault.trigger.on !== 'probe') continue;
      const t = fault.trigger;
      if (t.probe !== probe || (t.operation !== undefined && t.operation !== info.operationId))
        continue;
      const hits = (this.probeHits.get(index) ?? 0) + 1;
      this.probeHits.set(index, hits);
      if (hits !== t.nth) continue;
      this.record(
        index,
        fault,
        null,
        `process crashes at ${probe}${info.operationId ? ` of ${info.operationId}` : ''}`,
      );
      return { index, mode: fault.mode };
    }
    return undefined;
  }

  /**
   * True when the world applying request `requestId` (a write of `tool`) is the point an
   * `applied-write` crash names. Call it for each effect the world applies for the run; a
   * request that applies several effects counts once.
   */
  crashAfterApplied(
    tool: string,
    requestId: string,
  ): { index: number; mode: 'in-process' | 'child' } | undefined {
    if (this.applied.has(requestId)) return undefined;
    this.applied.add(requestId);
    const ofTool = (this.appliedByTool.get(tool) ?? 0) + 1;
    this.appliedByTool.set(tool, ofTool);
    for (const [index, fault] of this.plan.faults.entries()) {
      if (fault.kind !== 'crash' || this.done.has(index)) continue;
      const t = fault.trigger;
      if (t.on !== 'applied-write') continue;
      const count = t.tool === undefined ? this.applied.size : t.tool === tool ? ofTool : 0;
      if (count !== t.nth) continue;
      this.record(
        index,
        fault,
        requestId,
        `process crashes after the world applied write ${t.nth}${t.tool === undefined ? '' : ` of ${t.tool}`} (${tool})`,
      );
      return { index, mode: fault.mode };
    }
    return undefined;
  }

  /**
   * Lets every delayed request reach the world, even after the agent has stopped: a request
   * already sent arrives at the provider eventually, and its effect belongs in the ledger.
   */
  async deliverLate(): Promise<void> {
    const wait = this.lateUntil - this.clock.now();
    if (wait >= 0) await this.clock.sleep(wait + 1);
  }

  /** Faults of the plan that never fired: a scenario that does not exercise its fault proves nothing. */
  notFired(): number[] {
    return this.plan.faults.map((_, i) => i).filter((i) => !this.fired.some((f) => f.index === i));
  }

  private record(
    index: number,
    fault: Fault,
    callId: string | null,
    detail: string,
    once = true,
    effects: number[] = [],
  ): void {
    if (once) this.done.add(index);
    const at = this.clock.now();
    const order = this.clock.sequence?.();
    this.fired.push({
      index,
      kind: fault.kind,
      at,
      ...(order === undefined ? {} : { order }),
      callId,
      detail,
      ...(effects.length > 0 ? { effects } : {}),
    });
  }
}

function emptyResult(result: Record<string, unknown>): Record<string, unknown> {
  const content = result.structuredContent as Record<string, unknown> | undefined;
  if (!content) return result;
  const emptied = Object.fromEntries(
    Object.entries(content).map(([k, v]) => [k, Array.isArray(v) ? [] : v]),
  );
  return {
    ...result,
    structuredContent: emptied,
    content: [{ type: 'text', text: JSON.stringify(emptied) }],
  };
}

function replaceFields(
  result: Record<string, unknown>,
  replace: Record<string, unknown>,
): Record<string, unknown> {
  const content = result.structuredContent as Record<string, unknown> | undefined;
  if (!content) return result;
  const changed = { ...content, ...replace };
  return {
    ...result,
    structuredContent: changed,
    content: [{ type: 'text', text: JSON.stringify(changed) }],
  };
}

/** The planner keeps only what a resume packet would give it: statuses and confirmed results. */
function compact(context: WorkingContext): WorkingContext {
  const confirmed = context.operations.filter(
    (o) => o.status === 'confirmed' || o.status === 'reconciled',
  );
  const scope: Record<string, unknown> = { input: context.input };
  for (const o of confirmed) if (o.result !== undefined) scope[o.id] = o.result;
  const packet: ResumePacket = {
    objective: context.objective,
    state: 'compacted',
    confirmedActions: confirmed.map((o: OperationView) => ({
      operationId: o.id,
      tool: o.tool,
      result: o.result,
    })),
    openQuestions: [],
    remainingAuthority: { tools: [], budgets: {} },
    eligibleNextActions: context.operations.filter((o) => o.status === 'pending').map((o) => o.id),
  };
  return { ...context, evidence: [], scope, resume: packet };
}

/** A small deterministic generator (mulberry32) seeded from a string. */
export function seededRandom(seed: string): () => number {
  // Hashed on the first draw: most runs draw nothing (only probability triggers do).
  let a: number | undefined;
  return () => {
    a ??= createHash('sha256').update(seed).digest().readUInt32LE(0);
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
