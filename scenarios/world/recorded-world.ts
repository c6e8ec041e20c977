import { readFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  parseCassetteText,
  type Cassette,
  type ToolInteraction,
} from '../../recordings/cassette.js';
import { DEFAULT_REDACTION, redact } from '../../recordings/redact.js';
import { DIVERGENCE_META } from '../../recordings/replay-server.js';
import { canonicalJson } from '../../runtime/canonical-json.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { Predicate } from '../../runtime/predicate.js';
import { APPROVAL_TOOLS, META, type ToolError } from '../../runtime/protocol.js';
import { takeContractArguments } from './contract-arguments.js';
import {
  declaresIdempotencyKey,
  ExternalWorld,
  type ExternalAnswer,
  type ExternalCall,
  type ListedTool,
} from './external-world.js';
import type { WorldOptions } from './world.js';

/** The name scenarios give the recorded world (`world: { name: 'recorded', … }`). */
export const RECORDED_WORLD = 'recorded';

/**
 * How a recorded world answers:
 * - `sequence` (historical replay): each call must be the next recorded one, in order;
 * - `state` (a recording as a scenario fixture): any recorded call, in any order, answered as
 *   the recording answered it after as many applied writes as the run has made.
 */
export const REPLAY_MATCHES = ['sequence', 'state'] as const;
export type ReplayMatch = (typeof REPLAY_MATCHES)[number];

/** A tool call as the recorded world compares it: contract arguments set aside, redacted. */
export interface ReplayedCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * Where the run left the recording: the first call the recording could not answer. Only the
 * first is kept, since everything after it follows from it; the run ends there.
 */
export interface ReplayDivergence {
  /** 1-based number of the world call that diverged (approval desk calls are not counted). */
  readonly step: number;
  /** The recorded call that should have come; null when the recording was used up (or, matched by state, holds no such call). */
  readonly expected: (ReplayedCall & { readonly recordedStep: number }) | null;
  readonly actual: ReplayedCall;
  /** The world-side id of the diverging call (the trajectory's `callId`). */
  readonly callId: string;
  /** One line: `replay divergence at step N: expected …, got …`. */
  readonly message: string;
}

/** What a recorded world shows as its state (`world.*` in predicates, `world.start/end` in trajectories). */
export interface RecordedWorldState {
  /** The cassette file, as the scenario named it (resolved). */
  cassette: string;
  match: ReplayMatch;
  /** Recorded tool interactions that answered a call (`sequence`: consumed in order). */
  served: number;
  /** Recorded tool interactions that answered no call yet. */
  remaining: number;
  divergence: ReplayDivergence | null;
  /** Writes this run applied (a resend under the same idempotency key counts once). */
  writesApplied: number;
}

/** The options a scenario gives the recorded world (`world.options`). */
export interface RecordedWorldOptions {
  /** Path of a cassette (version 1 or 2). */
  readonly cassette: string;
  readonly match?: ReplayMatch;
}

/** One recorded world call, prepared for matching. */
interface Recorded {
  /** Its cassette `step`. */
  readonly step: number;
  readonly tool: string;
  readonly kind: 'read' | 'write';
  /** The recorded arguments with the contract's set aside. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly canonical: string;
  /** Writes the recording had applied before this interaction (see {@link recordedEpochs}). */
  readonly epoch: number;
  readonly interaction: ToolInteraction;
}

const CALL_KEY = (tool: string, canonical: string): string => `${tool}\u0000${canonical}`;

/**
 * The expectation "the recording was followed to its end": no divergence, and every recorded
 * world call consumed. What a replay of a recording whose session passed should end in.
 *
 * @example
 * ```ts
 * const expected = { state: 'completed', world: followedToTheEnd() };
 * ```
 */
export function followedToTheEnd(): Predicate {
  return {
    all: [
      { path: 'world.divergence', op: 'eq', value: null },
      { path: 'world.remaining', op: 'eq', value: 0 },
    ],
  };
}

/**
 * Reads and checks a cassette for a recorded world, synchronously (worlds are built
 * synchronously): one clear line naming the file and the field when it is missing, not JSON,
 * or not a cassette.
 */
export function readWorldCassette(path: string, source = `world ${RECORDED_WORLD}`): Cassette {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new InvalidInputError(source, [`options.cassette: cannot read ${path} (${why})`], {
      cause: error,
    });
  }
  return parseCassetteText(text, path);
}

/** The options as given, checked: one line naming `options.<field>` otherwise. */
function checkOptions(options: Record<string, unknown>): {
  cassette: string;
  match: ReplayMatch;
} {
  const source = `world ${RECORDED_WORLD}`;
  const { cassette, match = 'sequence' } = options;
  if (typeof cassette !== 'string' || cassette === '')
    throw new InvalidInputError(source, [
      `options.cassette: expected the path of a cassette file (got ${cassette === undefined ? 'nothing' : JSON.stringify(cassette)})`,
    ]);
  if (!(REPLAY_MATCHES as readonly unknown[]).includes(match))
    throw new InvalidInputError(source, [
      `options.match: expected ${REPLAY_MATCHES.map((m) => `"${m}"`).join(' or ')} (got ${JSON.stringify(match)})`,
    ]);
  return { cassette, match: match as ReplayMatch };
}

/** A recorded call's idempotency key: the ordinary argument, else the `_meta` one. */
function recordedKey(interaction: ToolInteraction): string | null {
  const taken = takeContractArguments(interaction.arguments);
  const fromArgs = taken.idempotencyKey;
  if (typeof fromArgs === 'string') return fromArgs;
  const fromMeta = interaction.meta?.[META.idempotencyKey];
  return typeof fromMeta === 'string' ? fromMeta : null;
}

/**
 * Counts the writes the recording had applied before each interaction. A recorded write counts
 * as applied when it was answered without error, or went unanswered (as far as a recording can
 * tell, a lost acknowledgement: the server got it); a resend under the key of a write already
 * counted does not count again, where the tool honours keys (declares `idempotency_key`).
 */
function recordedEpochs(
  interactions: readonly ToolInteraction[],
  kindOf: (tool: string) => 'read' | 'write',
  honoursKeys: (tool: string) => boolean,
): number[] {
  const keys = new Set<string>();
  let applied = 0;
  return interactions.map((i) => {
    const epoch = applied;
    if (kindOf(i.tool) === 'write') {
      const ok =
        i.unanswered !== undefined || (i.result !== undefined && i.result.isError !== true);
      const key = honoursKeys(i.tool) ? recordedKey(i) : null;
      const keyed = key === null ? null : CALL_KEY(i.tool, key);
      if (ok && (keyed === null || !keys.has(keyed))) {
        applied += 1;
        if (keyed !== null) keys.add(keyed);
      }
    }
    return epoch;
  });
}

/** A JSON-RPC error as the SDK's protocol layer sends it: the recorded `code`, `message` and `data`. */
class RecordedRpcError extends Error {
  override readonly name = 'RecordedRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A world answered from a cassette: the recorded tools, listed as the server listed them, and
 * each call answered with what was recorded for it — never a live call. Matched by
 * `sequence`, it replays a recorded session (`faultline run --replay`): each call must be the
 * next recorded one (same tool, same arguments once the contract's `idempotency_key` and
 * `approval_token` are set aside, compared redacted as the cassette was saved); matched by
 * `state`, it is a scenario fixture: any recorded call is answered, a read as it was answered
 * after as many applied writes as the run has made so far (or at the nearest earlier such point
 * the recording holds), a write with its recorded reply (successes before refusals; a resend
 * under a key gets what the key got).
 *
 * A call the recording cannot answer is the divergence: answered as an `invalid_argument`
 * refusal naming it (with the divergence in `_meta['faultline/replay-divergence']`), kept in
 * the world's state, and the run ended there. A call recorded without a reply gets none (the
 * agent's own timeout decides); a recorded JSON-RPC error is sent again as that error.
 *
 * Fault plans act on top (wire faults, hook faults, crashes); world faults that need a
 * domain — stale records, planted documents, unapplied writes — are refused, since a
 * recording has no domain to change.
 */
export class RecordedWorld extends ExternalWorld<RecordedWorldState> {
  readonly name = RECORDED_WORLD;
  private readonly listed: readonly ListedTool[];
  private readonly recorded: readonly Recorded[];
  private readonly match: ReplayMatch;
  /** `sequence`: the next recorded call. */
  private cursor = 0;
  /** World calls received (the divergence's step). */
  private calls = 0;
  /** Recorded interactions that answered a call, by index. */
  private readonly used = new Set<number>();
  /** `state`: calls per (tool, arguments) and epoch, so repeats walk the recorded repeats. */
  private readonly repeats = new Map<string, number>();
  /** `state`: the recorded reply each idempotency key of a key-honouring write was given. */
  private readonly keyReplies = new Map<string, number>();

  /** `file`: the cassette already read and checked (then `cassette` only names it). */
  constructor(options: WorldOptions & RecordedWorldOptions & { readonly file?: Cassette }) {
    const { cassette: path, match } = checkOptions(options as unknown as Record<string, unknown>);
    const cassette = options.file ?? readWorldCassette(path);
    const listed = cassette.tools.filter(
      (t) => !(APPROVAL_TOOLS as readonly string[]).includes(t.name),
    ) as unknown as ListedTool[];
    const kinds = new Map(
      listed.map((t) => [t.name, t.annotations?.readOnlyHint === true ? 'read' : 'write'] as const),
    );
    const issues: string[] = [];
    const world = cassette.interactions.flatMap((i, index) => {
      if (i.kind !== 'tool' || (APPROVAL_TOOLS as readonly string[]).includes(i.tool)) return [];
      if (!kinds.has(i.tool))
        issues.push(
          `interactions[${index}].tool: "${i.tool}" is not among the cassette's tools (${[...kinds.keys()].join(', ') || 'none'})`,
        );
      return [i];
    });
    if (issues.length > 0) throw new InvalidInputError(`cassette ${path}`, issues);
    const kindOf = (tool: string): 'read' | 'write' => kinds.get(tool) ?? 'write';
    const honouring = new Set(listed.filter(declaresIdempotencyKey).map((t) => t.name));
    const epochs = recordedEpochs(world, kindOf, (tool) => honouring.has(tool));
    const recorded = world.map((interaction, i): Recorded => {
      const args = comparable(takeContractArguments(interaction.arguments).args);
      return {
        step: interaction.step,
        tool: interaction.tool,
        kind: kindOf(interaction.tool),
        args,
        canonical: canonicalJson(args),
        epoch: epochs[i] ?? 0,
        interaction,
      };
    });
    super(options, {
      cassette: path,
      match,
      served: 0,
      remaining: recorded.length,
      divergence: null,
      writesApplied: 0,
    });
    this.listed = listed;
    this.recorded = recorded;
    this.match = match;
  }

  listedTools(): readonly ListedTool[] {
    return this.listed;
  }

  /** The state, with the writes applied counted now (the ledger is the count). */
  override snapshot(): RecordedWorldState {
    this.state.writesApplied = this.ledger.size;
    return super.snapshot();
  }

  /** The first divergence, or null while the run has stayed on the recording. */
  get divergence(): ReplayDivergence | null {
    return this.state.divergence;
  }

  protected forward(call: ExternalCall): Promise<ExternalAnswer> {
    this.calls += 1;
    this.state.writesApplied = this.ledger.size;
    const actual: ReplayedCall = { tool: call.tool, arguments: comparable(call.args) };
    const canonical = canonicalJson(actual.arguments);
    const over = this.state.divergence;
    if (over !== null)
      return Promise.resolve(
        this.refuse(
          `replay is over (${over.message}); call ${this.calls} (${describe(actual.tool, actual.arguments)}) was not answered`,
          over,
        ),
      );
    const found =
      this.match === 'sequence'
        ? this.nextInSequence(actual.tool, canonical)
        : this.byState(call, actual.tool, canonical);
    if (typeof found === 'number') return Promise.resolve(this.answer(found, call));
    const expected = typeof found === 'string' ? null : found;
    const message =
      typeof found === 'string'
        ? `replay divergence at step ${this.calls}: ${found}`
        : expected === null
          ? `replay divergence at step ${this.calls}: expected the end of the recording (${this.recorded.length} calls), got ${describe(actual.tool, actual.arguments)}`
          : `replay divergence at step ${this.calls}: expected ${describe(expected.tool, expected.args)}, got ${describe(actual.tool, actual.arguments)}`;
    const divergence: ReplayDivergence = {
      step: this.calls,
      expected:
        expected === null
          ? null
          : { tool: expected.tool, arguments: expected.args, recordedStep: expected.step },
      actual,
      callId: call.requestId,
      message,
    };
    this.state.divergence = divergence;
    // The refusal goes out first, so the agent hears why; the run ends once it has been sent
    // (an end now would cancel the call and leave the agent guessing whether it happened).
    setImmediate(() => {
      this.endRun(message);
    });
    return Promise.resolve(this.refuse(message, divergence));
  }

  /** `sequence`: the index of the next recorded call when this is it, else what was expected. */
  private nextInSequence(tool: string, canonical: string): number | Recorded | null {
    const next = this.recorded[this.cursor];
    if (next === undefined) return null;
    if (next.tool !== tool || next.canonical !== canonical) return next;
    this.cursor += 1;
    return this.cursor - 1;
  }

  /**
   * `state`: the recorded interaction that answers this call, or why none can. A write takes
   * its recorded reply (see {@link writeAnswer}); a read, the reply recorded at the run's epoch (writes applied so far), else at the nearest
   * earlier epoch the recording holds — never a later one, which would show the agent writes it
   * has not made; the n-th such read within one epoch takes the n-th recorded there (the last
   * one when there are fewer).
   */
  private byState(call: ExternalCall, tool: string, canonical: string): number | string {
    const same = this.recorded.flatMap((r, i) =>
      r.tool === tool && r.canonical === canonical ? [i] : [],
    );
    const shown = `${tool} ${canonical}`;
    if (same.length === 0) return `the recording holds no ${shown}`;
    const at = (i: number): Recorded => this.recorded[i] as Recorded;
    if (call.kind === 'write') return this.writeAnswer(call, CALL_KEY(tool, canonical), same);
    const epoch = this.state.writesApplied;
    const before = same.filter((i) => at(i).epoch <= epoch);
    const last = before[before.length - 1];
    if (last === undefined) {
      const first = at(same[0] as number).epoch;
      return `the recording holds ${shown} only after ${first} applied write(s), and the run has applied ${epoch}`;
    }
    const chosenEpoch = at(last).epoch;
    const there = same.filter((i) => at(i).epoch === chosenEpoch);
    const key = `${CALL_KEY(tool, canonical)}\u0000${epoch}`;
    const n = this.repeats.get(key) ?? 0;
    this.repeats.set(key, n + 1);
    return there[Math.min(n, there.length - 1)] as number;
  }

  /**
   * `state`: the recorded reply of a write. Its recorded successes come first, then its
   * recorded refusals, then a reply never received: the fixture's steady answer, with faults
   * left to the plan. A resend under a key the tool honours gets the reply its key got; any
   * other call, the next recorded one (the n-th send of a message gets the n-th recorded reply,
   * the last one when there are fewer).
   */
  private writeAnswer(call: ExternalCall, callKey: string, same: readonly number[]): number {
    const at = (i: number): ToolInteraction => (this.recorded[i] as Recorded).interaction;
    const rank = (i: number): number =>
      at(i).unanswered !== undefined
        ? 2
        : at(i).error !== undefined || at(i).result?.isError === true
          ? 1
          : 0;
    const preferred = [...same].sort((a, b) => rank(a) - rank(b) || a - b);
    const honours = this.tool(call.tool)?.honoursIdempotencyKey === true;
    const key =
      honours && call.idempotencyKey !== null ? `${call.tool}\u0000${call.idempotencyKey}` : null;
    const given = key === null ? undefined : this.keyReplies.get(key);
    if (given !== undefined) return given;
    const sends = `write\u0000${callKey}`;
    const n = this.repeats.get(sends) ?? 0;
    this.repeats.set(sends, n + 1);
    const chosen = preferred[Math.min(n, preferred.length - 1)] as number;
    if (key !== null) this.keyReplies.set(key, chosen);
    return chosen;
  }

  /** Answers a call with recorded interaction `index`, and counts it served. */
  private answer(index: number, call: ExternalCall): ExternalAnswer {
    const recorded = this.recorded[index] as Recorded;
    this.used.add(index);
    this.state.served = this.used.size;
    this.state.remaining = this.recorded.length - this.used.size;
    const { interaction } = recorded;
    if (interaction.error !== undefined) {
      const { code, message, data } = interaction.error;
      throw new RecordedRpcError(code, message, data);
    }
    // An unanswered write is taken as applied, as it is counted in the recording's epochs.
    if (interaction.unanswered !== undefined)
      return { noReply: true, applied: call.kind === 'write' };
    return { result: structuredClone(interaction.result ?? { content: [] }) as CallToolResult };
  }

  private refuse(message: string, divergence: ReplayDivergence): ExternalAnswer {
    const error: ToolError = { class: 'invalid_argument', message };
    return {
      result: {
        isError: true,
        content: [{ type: 'text', text: message }],
        _meta: { [META.error]: error, [DIVERGENCE_META]: structuredClone(divergence) },
      },
      applied: false,
    };
  }
}

/** Arguments as replay compares them: redacted as the cassette was saved. */
function comparable(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redact({ ...args }, DEFAULT_REDACTION);
}

const describe = (tool: string, args: unknown): string => `${tool} ${canonicalJson(args)}`;
