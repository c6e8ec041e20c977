import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { FAULTLINE_METADATA, type FaultlineCallMetadata } from '../models/meter.js';
import type { ModelSwitch } from '../models/run-model.js';
import type { Fault } from './catalog.js';

/** A model fault of the plan, due at a model call. */
export interface DueModelFault {
  index: number;
  fault: Extract<Fault, { kind: 'invalid-output' | 'context-compaction' | 'model-swap' }>;
}

/** What the model layer needs of the fault injector: which faults are due, and a record of each. */
export interface ModelFaultSource {
  /** Counts one model call of the run and returns the model faults its trigger names. */
  dueAtModelCall(): { call: number; due: DueModelFault[] };
  /** Records a fired fault (→ `trajectory.faults.fired`). */
  fireModelFault(index: number, detail: string): void;
}

/**
 * The plan's model faults as a model layer, between the meter and the provider (see
 * `openRunModel`). A `{ on: 'proposal', nth }` trigger counts the run's model calls:
 * - `invalid-output`: the provider's reply is cut off half-way, as a reply broken off
 *   mid-generation looks — each text part keeps its first half (a JSON answer no longer parses)
 *   and each tool call's input is cut short (its arguments no longer parse, so the SDK turns it
 *   into a tool error the model is told about). Finish reason and usage stay as the provider
 *   reported them.
 * - `context-compaction`: the prompt is cut to half its size the way a context limit cuts it
 *   (see {@link compactPrompt}); this call only — the agent's own transcript is untouched, and
 *   its next call sends it whole.
 * - `model-swap`: this call and every later one go to `model` on the run's provider (`model`
 *   may name the provider: `openai:gpt-4.1`); the meter records the new id. With `prompt`, the
 *   system prompt of this and every later call is that text instead. A run whose model is a
 *   language model object from the API cannot be reopened under another id: its calls keep
 *   going to that object, and the fault says so (a `prompt` still applies).
 * Each fired fault is recorded by the injector and described to the meter through the result's
 * `providerMetadata.faultline.fault`; after a swap, `providerMetadata.faultline.modelId` names
 * the model called, so a planner can report its new version.
 */
export function modelFaultsMiddleware(
  source: ModelFaultSource,
  models: ModelSwitch,
): LanguageModelV3Middleware {
  let systemPrompt: string | undefined;
  let swapped = false;
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const { call, due } = source.dueAtModelCall();
      const notes: string[] = [];
      let garble = false;
      let prompt = params.prompt;
      for (const { index, fault } of due) {
        let detail: string;
        switch (fault.kind) {
          case 'model-swap': {
            detail = swapModel(models, fault.model, call);
            swapped = true;
            if (fault.prompt !== undefined) {
              systemPrompt = fault.prompt;
              detail += '; the system prompt swapped';
            }
            break;
          }
          case 'context-compaction': {
            const compacted = compactPrompt(prompt);
            prompt = compacted.prompt;
            detail =
              compacted.dropped === 0
                ? `model call ${call}: context compaction found nothing to drop (${compacted.messages} messages: the system prompt and the latest turn are kept)`
                : `model call ${call}: context compacted to a ${compacted.budget}-character budget: dropped the ${compacted.dropped} oldest of ${compacted.messages} messages (${compacted.before} → ${compacted.after} characters)`;
            break;
          }
          case 'invalid-output':
            garble = true;
            detail = `model call ${call}: the reply is garbled (cut off half-way)`;
            break;
        }
        source.fireModelFault(index, detail);
        notes.push(detail);
      }
      if (systemPrompt !== undefined) prompt = withSystemPrompt(prompt, systemPrompt);
      const result =
        prompt === params.prompt
          ? await doGenerate()
          : await model.doGenerate({ ...params, prompt } satisfies LanguageModelV3CallOptions);
      const changed = garble ? garbleResult(result) : result;
      if (notes.length === 0 && !swapped) return changed;
      return withNote(changed, {
        ...(notes.length === 0 ? {} : { fault: notes.join('; ') }),
        ...(swapped ? { modelId: models.current() } : {}),
      });
    },
  };
}

function swapModel(models: ModelSwitch, named: string, call: number): string {
  const before = models.current();
  const now = models.swap(named);
  if (now === undefined)
    return `model call ${call}: model swap to ${named} asked, but the run's model is a language model object from the API, which cannot be reopened under another id: calls still go to ${before}`;
  return `model call ${call}: model swapped from ${before} to ${now}`;
}

/** The result with faultline's note to the meter added to its provider metadata. */
function withNote(
  result: LanguageModelV3GenerateResult,
  note: FaultlineCallMetadata,
): LanguageModelV3GenerateResult {
  const previous = result.providerMetadata?.[FAULTLINE_METADATA] ?? {};
  return {
    ...result,
    providerMetadata: {
      ...result.providerMetadata,
      [FAULTLINE_METADATA]: { ...previous, ...note },
    },
  };
}

/** A string cut to its first half: JSON cut this way never parses. */
function cut(text: string): string {
  const half = text.slice(0, Math.ceil(text.length / 2));
  // Too short to cut ("", "1"): an opening brace is garbage no JSON reader accepts.
  return half.length < 2 ? '{' : half;
}

/** The reply cut off half-way (see {@link modelFaultsMiddleware}). */
export function garbleResult(result: LanguageModelV3GenerateResult): LanguageModelV3GenerateResult {
  const content = result.content.map((part): LanguageModelV3Content => {
    if (part.type === 'text') return { ...part, text: cut(part.text) };
    if (part.type === 'tool-call') return { ...part, input: cut(part.input) };
    return part;
  });
  // A reply with nothing to cut (no text, no tool call) becomes the start of one.
  if (!result.content.some((p) => p.type === 'text' || p.type === 'tool-call'))
    content.push({ type: 'text', text: '{' });
  return { ...result, content };
}

/** The prompt with its system prompt replaced by `text` (put first when it had none). */
function withSystemPrompt(prompt: LanguageModelV3Prompt, text: string): LanguageModelV3Prompt {
  const rest = prompt.filter((m) => m.role !== 'system');
  return [{ role: 'system', content: text }, ...rest];
}

/** How {@link compactPrompt} cut a prompt. */
export interface CompactedPrompt {
  prompt: LanguageModelV3Prompt;
  /** Messages in the prompt given, and how many were dropped. */
  messages: number;
  dropped: number;
  /** Sizes in characters of JSON: before, after, and the budget aimed at (half of before). */
  before: number;
  after: number;
  budget: number;
}

/**
 * Cuts a prompt the way a context limit does: the oldest messages go first until it fits a
 * budget of half its size. Kept always: the system prompt, the latest user turn, and the latest
 * exchange (the last message and the tool results that answer it). A tool call and its result
 * go together (an assistant message and the tool messages after it are one unit), and what is
 * left starts at a user message, as every provider's API requires. Sizes are characters of
 * JSON: a stand-in for tokens that needs no tokenizer and is the same on every machine.
 *
 * @example
 * ```ts
 * const { prompt, dropped } = compactPrompt(params.prompt);
 * ```
 */
export function compactPrompt(prompt: LanguageModelV3Prompt): CompactedPrompt {
  const sizes = prompt.map((m) => JSON.stringify(m).length);
  const before = sizes.reduce((a, b) => a + b, 0);
  const budget = Math.floor(before / 2);
  // Units of non-system messages: a user message, or an assistant message with its tool results.
  const units: number[][] = [];
  prompt.forEach((m, i) => {
    if (m.role === 'system') return;
    const last = units.at(-1);
    if (m.role === 'tool' && last) last.push(i);
    else units.push([i]);
  });
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const keep = new Set<number[]>();
  const userUnit = units.find((u) => u.includes(lastUser));
  if (userUnit) keep.add(userUnit);
  const lastUnit = units.at(-1);
  if (lastUnit) keep.add(lastUnit);
  const dropped = new Set<number>();
  let size = before;
  for (const unit of units) {
    if (size <= budget) break;
    if (keep.has(unit)) continue;
    for (const i of unit) {
      dropped.add(i);
      size -= sizes[i] ?? 0;
    }
  }
  // What is left must open with a user turn: assistant turns left at its head go too.
  for (const unit of units) {
    if (unit.every((i) => dropped.has(i))) continue;
    if (prompt[unit[0] ?? -1]?.role === 'user' || keep.has(unit)) break;
    for (const i of unit) {
      dropped.add(i);
      size -= sizes[i] ?? 0;
    }
  }
  const kept: LanguageModelV3Message[] = prompt.filter((_, i) => !dropped.has(i));
  return {
    prompt: kept,
    messages: prompt.length,
    dropped: dropped.size,
    before,
    after: size,
    budget,
  };
}
