import type { Clock } from '../../runtime/clock.js';
import { APPROVAL_TOKEN_META, CONTRACT_ARGUMENT, META } from '../../runtime/protocol.js';
import { ApprovalRegistry, type ApprovalRefusal } from './approval-registry.js';
import { takeContractArguments } from './contract-arguments.js';
import { CredentialRegistry } from './credential-registry.js';
import { clonePlain } from './plain-clone.js';
import { EffectLedger, type LedgerEntry, type NewLedgerEntry } from './effect-ledger.js';
import type { CallContext, ToolDefinition } from './tool-definition.js';
import { WorldError } from './world-error.js';

/** A call as the world's hooks see it: after the credential check, before the handler. */
export interface WorldCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly requestId: string;
  readonly runId: string;
  readonly meta: Readonly<Record<string, unknown>>;
}

/** Returns an error to make the world answer with it instead of running the handler. */
export type BeforeCallHook = (call: WorldCall) => WorldError | undefined;

export interface WorldOptions {
  readonly seed: number;
  readonly clock: Clock;
}

interface Replay {
  readonly fingerprint: string;
  readonly output: Record<string, unknown>;
}

/**
 * A simulated external system: authoritative state, the tools that read and change it, and
 * the ledger of every effect applied. Subclasses declare tools; the base does what every world
 * must do the same way — check the credential, run fault hooks, validate arguments, replay
 * idempotent writes, and stamp effects — so worlds differ only in their domain rules.
 *
 * Calls are synchronous from the credential check to the reply, so no other call can
 * interleave with a handler; a fault that needs interleaving uses a hook.
 *
 * @example
 * ```ts
 * const world = new RefundsWorld({ seed: 7, clock: new VirtualClock() });
 * const cred = world.credentials.issue('run-1', { tools: ['get_order'], resources: {} }, 60_000);
 * world.callTool('get_order', { order_id: 'ord_1' }, { [META.credential]: cred.token }, 1);
 * ```
 */
export abstract class World<State> {
  /** Short name, used as the MCP server name. */
  abstract readonly name: string;
  readonly clock: Clock;
  readonly seed: number;
  readonly ledger: EffectLedger;
  readonly credentials: CredentialRegistry;
  readonly approvals: ApprovalRegistry;
  /** Hooks run in order; the first error returned wins. The fault layer pushes onto this. */
  readonly beforeCall: BeforeCallHook[] = [];
  /** Ground truth. Handlers change it; faults change it through the world's own methods. */
  state: State;

  private readonly replays = new Map<string, Replay>();
  /** Requests whose change the world will acknowledge and drop (an `unapplied-write` fault). */
  private readonly unapplied = new Set<string>();
  private toolIndex: ReadonlyMap<string, ToolDefinition> | undefined;

  protected constructor(options: WorldOptions, initialState: State) {
    this.clock = options.clock;
    this.seed = options.seed;
    this.state = initialState;
    this.ledger = new EffectLedger(options.clock);
    this.credentials = new CredentialRegistry(options.clock);
    this.approvals = new ApprovalRegistry(options.clock);
  }

  /** The tools this world serves. Called once; keep it free of side effects. */
  abstract tools(): readonly ToolDefinition[];

  /** A deep copy of the state, safe to keep while the world moves on. */
  snapshot(): State {
    return clonePlain(this.state);
  }

  /**
   * World faults this world can suffer: named changes for `stale-record`, and the tools whose
   * content can carry a planted document. A fault plan naming anything else is refused before
   * the run starts.
   */
  faultSupport(): { staleChanges: readonly string[]; documentTools: readonly string[] } {
    return { staleChanges: [], documentTools: [] };
  }

  /** Makes a named change behind the agent's back (a colleague, another system); returns what changed. */
  applyStaleChange(change: string, _params: Readonly<Record<string, unknown>>): string {
    throw new WorldError(
      'invalid_argument',
      `world ${this.name} has no stale-record change "${change}"`,
    );
  }

  /** Plants an instruction in content `tool` returns; returns where. */
  plantDocument(tool: string, _instruction: string): string {
    throw new WorldError(
      'invalid_argument',
      `world ${this.name} cannot plant a document in ${tool}`,
    );
  }

  /**
   * The effect identity an approval for this call must be granted for, when the tool
   * requires one (`undefined` otherwise). The operator grants approvals against it.
   */
  approvalIdentity(_tool: string, _args: Readonly<Record<string, unknown>>): string | undefined {
    return undefined;
  }

  /**
   * Makes the world acknowledge the write of request `requestId` and drop its change, as a
   * provider that reports success and loses the change does: the handler runs and its success
   * is the reply, then the state is put back as it was, no effect reaches the ledger and the
   * key is not remembered (a resend applies anew). Only a fresh read can tell. An approval the
   * request presented stays consumed: the provider checked it.
   */
  dropChangeOf(requestId: string): void {
    this.unapplied.add(requestId);
  }

  /**
   * What a dropped change would have recorded, stamped as the ledger would have (so the reply
   * looks like any other), handed back to the handler and kept nowhere.
   */
  private unrecorded(entry: NewLedgerEntry): LedgerEntry {
    return {
      ...entry,
      seq: this.ledger.size + 1,
      at: this.clock.now(),
      effect: clonePlain(entry.effect),
      approvalToken: entry.approvalToken ?? null,
      compensates: entry.compensates ?? null,
    };
  }

  tool(name: string): ToolDefinition | undefined {
    this.toolIndex ??= new Map(this.tools().map((t) => [t.name, t]));
    return this.toolIndex.get(name);
  }

  /**
   * What every call goes through before the world answers it, simulated or external: the tool
   * must exist, the contract's ordinary arguments are taken out, the credential in `meta` must
   * allow the call, and the `beforeCall` hooks (faults) may refuse it. Throws `WorldError`.
   */
  protected admit(
    name: string,
    sent: Readonly<Record<string, unknown>>,
    meta: Readonly<Record<string, unknown>> | undefined,
    requestId: string | number,
  ): { tool: ToolDefinition; call: WorldCall; taken: ReturnType<typeof takeContractArguments> } {
    const tool = this.tool(name);
    if (!tool) throw new WorldError('invalid_argument', `unknown tool "${name}"`);
    const callMeta = meta ?? {};
    const taken = takeContractArguments(sent);
    const args = taken.args;

    // A credential of the wrong type is no credential: refuse it as unauthenticated.
    const presented = callMeta[META.credential];
    const token = typeof presented === 'string' ? presented : undefined;
    const access = this.credentials.check(token, name, args);
    if (!access.ok) throw new WorldError(access.class, access.message);

    const call: WorldCall = {
      tool: name,
      args,
      requestId: String(requestId),
      runId: access.runId,
      meta: callMeta,
    };
    for (const hook of this.beforeCall) {
      const refusal = hook(call);
      if (refusal) throw refusal;
    }
    return { tool, call, taken };
  }

  /**
   * Serves one call: credential check from `meta`, `beforeCall` hooks, argument validation,
   * idempotent replay (writes that honour keys), then the handler. Throws `WorldError` for
   * every refusal; anything else thrown is a bug in the world.
   *
   * The idempotency key and approval token come from `_meta` or from the ordinary arguments
   * `idempotency_key` and `approval_token` (see `contractInput`); those are taken out of the
   * arguments first, so no hook, handler or fingerprint ever sees them.
   */
  callTool(
    name: string,
    sent: Readonly<Record<string, unknown>>,
    meta: Readonly<Record<string, unknown>> | undefined,
    requestId: string | number,
  ): Record<string, unknown> {
    const { tool, call, taken } = this.admit(name, sent, meta, requestId);
    const { args, meta: callMeta, requestId: requestKey, runId } = call;

    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`,
      );
      throw new WorldError(
        'invalid_argument',
        `invalid arguments for ${name}: ${issues.join('; ')}`,
      );
    }

    const idempotencyKey = either(
      taken.idempotencyKey,
      CONTRACT_ARGUMENT.idempotencyKey,
      callMeta,
      META.idempotencyKey,
    );
    const approvalToken = either(
      taken.approvalToken,
      CONTRACT_ARGUMENT.approvalToken,
      callMeta,
      APPROVAL_TOKEN_META,
    );
    const dedupe =
      tool.kind === 'write' && tool.honoursIdempotencyKey === true && idempotencyKey !== null;
    const replayKey = `${name}\u0000${idempotencyKey ?? ''}`;
    // Only a write that honours keys is ever compared with an earlier call of its key.
    const fingerprint = dedupe ? stableJson(parsed.data) : '';
    if (dedupe) {
      const prior = this.replays.get(replayKey);
      if (prior && prior.fingerprint !== fingerprint) {
        throw new WorldError(
          'conflict',
          `idempotency key was already used for ${name} with different arguments`,
        );
      }
      if (prior) return clonePlain(prior.output);
    }

    let consumedApproval: string | null = null;
    const dropped = tool.kind === 'write' && this.unapplied.delete(requestKey);
    const before = dropped ? structuredClone(this.state) : undefined;
    const ctx: CallContext = {
      now: this.clock.now(),
      runId,
      requestId: requestKey,
      idempotencyKey,
      approvalToken,
      apply: (identity, effect, options): LedgerEntry =>
        (dropped
          ? (e: NewLedgerEntry) => this.unrecorded(e)
          : this.ledger.append.bind(this.ledger))({
          runId,
          tool: name,
          requestId: requestKey,
          idempotencyKey,
          identity,
          effect,
          approvalToken: consumedApproval,
          compensates: options?.compensates ?? null,
        }),
      requireApproval: (identity) => {
        const verdict = this.approvals.consume(
          approvalToken ?? undefined,
          name,
          identity,
          requestKey,
        );
        if (!verdict.ok)
          throw new WorldError('forbidden', approvalMessage(verdict.reason, name, identity));
        consumedApproval = approvalToken;
      },
    };
    const output = tool.handle(parsed.data, ctx);
    if (before !== undefined) {
      this.state = before;
      return output;
    }
    if (dedupe) this.replays.set(replayKey, { fingerprint, output: clonePlain(output) });
    return output;
  }
}

function metaString(meta: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = meta[key];
  if (value === undefined || typeof value === 'string') return value;
  throw new WorldError('invalid_argument', `_meta["${key}"] must be a string`);
}

/** One value sent as an ordinary argument, in `_meta`, or both alike; `null` when neither. */
function either(
  argument: unknown,
  argumentName: string,
  meta: Readonly<Record<string, unknown>>,
  metaKey: string,
): string | null {
  const fromMeta = metaString(meta, metaKey);
  if (argument === undefined) return fromMeta ?? null;
  if (typeof argument !== 'string')
    throw new WorldError('invalid_argument', `${argumentName} must be a string`);
  if (fromMeta !== undefined && fromMeta !== argument) {
    throw new WorldError(
      'invalid_argument',
      `${argumentName} and _meta["${metaKey}"] differ; send one, or the same value in both`,
    );
  }
  return argument;
}

function approvalMessage(reason: ApprovalRefusal, tool: string, identity: string): string {
  switch (reason) {
    case 'missing':
      return `approval missing: ${tool} for ${identity} needs an approval token`;
    case 'unknown':
      return `approval unknown: the approval token presented for ${identity} was never granted`;
    case 'wrong-action':
      return `approval wrong-action: the approval token was granted for a different action than ${tool} ${identity}`;
    case 'reused':
      return `approval reused: the approval token for ${identity} has already been consumed`;
  }
}

/** JSON with sorted keys, so argument order does not change an idempotency fingerprint. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
