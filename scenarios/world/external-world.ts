import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { canonicalJson } from '../../runtime/canonical-json.js';
import { META } from '../../runtime/protocol.js';
import type { ToolDefinition, ToolKind } from './tool-definition.js';
import { World, type WorldOptions } from './world.js';
import { WorldError } from './world-error.js';

/**
 * A tool as a server lists it (`tools/list`): JSON schemas kept whole, annotations included.
 * The same shape a cassette records (`RecordedTool`), restated here so the world layer does not
 * depend on the recordings layer.
 */
export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly outputSchema?: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** A call an external world answers, after the credential check and the fault hooks. */
export interface ExternalCall {
  readonly tool: string;
  /** The arguments as the agent sent them (contract arguments included: the server may read them). */
  readonly sent: Readonly<Record<string, unknown>>;
  /** The arguments without the contract's `idempotency_key` and `approval_token`. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The request's `_meta`, without the run's credential (faultline's, not the server's). */
  readonly meta: Readonly<Record<string, unknown>>;
  readonly requestId: string;
  readonly runId: string;
  readonly kind: ToolKind;
  readonly idempotencyKey: string | null;
  readonly approvalToken: string | null;
  /** Aborted when the agent cancels the request. */
  readonly signal: AbortSignal;
}

/**
 * How an external world answers: with a result (successes and `isError` refusals alike, as the
 * server sent them), or not at all (`noReply`: the reply is withheld, as a lost acknowledgement
 * is, and the agent's own timeout decides what happens next). `applied` says whether a write's
 * effect happened (it goes into the ledger); it defaults to "a write answered without error".
 */
export type ExternalAnswer =
  | { readonly result: CallToolResult; readonly applied?: boolean }
  | { readonly noReply: true; readonly applied?: boolean };

/**
 * A world whose tools are answered by something outside faultline's simulation — a cassette
 * (the recorded world) or a live MCP server (the live world) — asynchronously, through
 * {@link forward}, instead of by synchronous handlers over a state. It advertises the tools
 * exactly as the server listed them, and it is run by the engine like any world: the run's
 * credential is checked and the fault hooks run before each call (`admit`), the wire's faults
 * and log apply, the approvals desk and operator serve beside it, and every write it reports as
 * applied goes into the effect ledger under an identity made of the tool and its arguments
 * (one effect per idempotency key, as a server that honours keys has it).
 *
 * A subclass may end the run (`endRun`, e.g. at a replay divergence) and may withhold a reply.
 */
export abstract class ExternalWorld<State> extends World<State> {
  /**
   * Set by the engine: ends the run now, with `reason` as the deadline's reason (the agent is
   * told to stop, and the run is graded as it stands). Default: nothing to end.
   */
  endRun: (reason: string) => void = () => undefined;
  /**
   * Set by the engine: makes the wire withhold the reply of `requestId` (as after a lost
   * acknowledgement). Returns false where no wire can (a world served without the engine),
   * and the reply is then never sent.
   */
  withholdReply: (requestId: string) => boolean = () => false;

  private definitions: readonly ToolDefinition[] | undefined;
  /** Writes applied per tool and idempotency key: a resend with the key is not a new effect. */
  private readonly keyed = new Set<string>();

  protected constructor(options: WorldOptions, initialState: State) {
    super(options, initialState);
  }

  /** The tools as the server listed them, verbatim: what an agent is offered. */
  abstract listedTools(): readonly ListedTool[];

  /** Answers one admitted call. Throw `WorldError` for a typed refusal. */
  protected abstract forward(call: ExternalCall): Promise<ExternalAnswer>;

  /**
   * The tools as definitions, for the engine and graders (names, kinds): a tool is a read when
   * the server marks it `readOnlyHint`, else a write (MCP's own default). Arguments are the
   * server's to check, so the schemas here accept any object.
   */
  tools(): readonly ToolDefinition[] {
    this.definitions ??= this.listedTools().map((t) => ({
      name: t.name,
      description: t.description ?? '',
      kind: t.annotations?.readOnlyHint === true ? ('read' as const) : ('write' as const),
      input: z.looseObject({}),
      output: z.looseObject({}),
      handle: () => {
        throw new WorldError('invalid_argument', `${t.name} is answered by ${this.name}, not here`);
      },
    }));
    return this.definitions;
  }

  /** External tools are answered by `callExternal`; a synchronous call cannot be. */
  override callTool(name: string): Record<string, unknown> {
    throw new WorldError(
      'invalid_argument',
      `${name}: world ${this.name} answers asynchronously; setup calls cannot reach it`,
    );
  }

  /**
   * Serves one call: admits it (credential, fault hooks), forwards it, and records a write's
   * effect. A withheld reply resolves to `null` when the wire will drop it, and never when no
   * wire can.
   */
  async callExternal(
    name: string,
    sent: Readonly<Record<string, unknown>>,
    meta: Readonly<Record<string, unknown>> | undefined,
    requestId: string | number,
    signal: AbortSignal,
  ): Promise<CallToolResult | null> {
    const { tool, call, taken } = this.admit(name, sent, meta, requestId);
    const { [META.credential]: _credential, ...forwardedMeta } = call.meta;
    const external: ExternalCall = {
      tool: name,
      sent,
      args: call.args,
      meta: forwardedMeta,
      requestId: call.requestId,
      runId: call.runId,
      kind: tool.kind,
      idempotencyKey: stringOrNull(taken.idempotencyKey ?? call.meta[META.idempotencyKey]),
      approvalToken: stringOrNull(taken.approvalToken),
      signal,
    };
    const answer = await this.forward(external);
    const result = 'result' in answer ? answer.result : null;
    const applied = answer.applied ?? (result !== null && result.isError !== true);
    if (tool.kind === 'write' && applied) this.recordEffect(external, result);
    if (result !== null) return result;
    if (this.withholdReply(call.requestId)) return null;
    return new Promise<never>(() => undefined);
  }

  private recordEffect(call: ExternalCall, result: CallToolResult | null): void {
    if (call.idempotencyKey !== null) {
      const key = `${call.tool}\u0000${call.idempotencyKey}`;
      if (this.keyed.has(key)) return;
      this.keyed.add(key);
    }
    this.ledger.append({
      runId: call.runId,
      tool: call.tool,
      requestId: call.requestId,
      idempotencyKey: call.idempotencyKey,
      identity: `${call.tool} ${canonicalJson(call.args)}`,
      effect: {
        arguments: structuredClone(call.args),
        ...(result?.structuredContent ? { result: structuredClone(result.structuredContent) } : {}),
      },
      approvalToken: call.approvalToken,
      compensates: null,
    });
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
