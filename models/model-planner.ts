import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Planner, PlannerUsage } from '../runtime/planner.js';
import type { WorkingContext } from '../runtime/working-context.js';
import { loadAiSdk } from './ai-sdk.js';
import { FAULTLINE_METADATA, type FaultlineCallMetadata } from './meter.js';
import { toPlannerCallError } from './model-error.js';
import type { ModelSettings } from './model-setup.js';
import { plannerView, viewMessage } from './planner-view.js';
import { defaultPromptFile, promptHash } from './prompt-file.js';

/** `prompts/model-planner.md`, the prompt a model planner uses when the run gives none. */
export function defaultPlannerPrompt(): string {
  return defaultPromptFile('model-planner').text;
}

export interface ModelPlannerOptions {
  /** The run's model (`run.model`): metered, cassettes and faults around the provider. */
  model: LanguageModelV3;
  /** The run's settings (`run.modelSettings`); without `system` the default prompt is used. */
  settings?: ModelSettings | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * A planner backed by a language model. Each call shows the model a bounded view of the
 * working context (see {@link plannerView}) and asks for one proposal as JSON; the raw object
 * goes back to the runtime, which validates it against the proposal schema (anything else is
 * `invalid_output`) and disposes of it with every safeguard. The SDK's retries are off: the
 * runtime's supervisor decides, by the class of a provider error this planner throws.
 *
 * @example
 * ```ts
 * const planner = new ModelPlanner({ model: run.model, settings: run.modelSettings });
 * const runtime = new ReferenceRuntime({ store, client, clock, credential, planner });
 * ```
 */
export class ModelPlanner implements Planner {
  private readonly system: string;
  private readonly prompt: string;
  /** The model the last call went to, when a `model-swap` sent it elsewhere. */
  private swappedTo: string | undefined;

  constructor(private readonly options: ModelPlannerOptions) {
    this.system = options.settings?.system ?? defaultPlannerPrompt();
    this.prompt = promptHash(this.system);
  }

  /** Read on every call: a model swapped mid-run shows here, and the runtime replans. */
  get versions(): { model: string; prompt: string } {
    return { model: this.swappedTo ?? this.options.model.modelId, prompt: this.prompt };
  }

  async propose(context: WorkingContext): Promise<{ proposal: unknown; usage: PlannerUsage }> {
    const settings = this.options.settings;
    // Not imported at the top: the zoo names this planner's agents, and a start that runs none
    // of them should not load the AI SDK (a run with a model loads it before it starts).
    const { generateText } = await loadAiSdk();
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model: this.options.model,
        system: this.system,
        prompt: viewMessage(plannerView(context)),
        maxRetries: 0,
        ...(settings?.temperature === undefined ? {} : { temperature: settings.temperature }),
        ...(settings?.seed === undefined ? {} : { seed: settings.seed }),
        ...(this.options.signal ? { abortSignal: this.options.signal } : {}),
      });
    } catch (error) {
      // Classified for the supervisor: a 429 waits its retry-after, a 5xx backs off, …
      throw toPlannerCallError(error);
    }
    const note = result.providerMetadata?.[FAULTLINE_METADATA] as FaultlineCallMetadata | undefined;
    if (note?.modelId !== undefined) this.swappedTo = note.modelId;
    return {
      proposal: parseReply(result.text),
      usage: {
        inputTokens: result.usage.inputTokens ?? 0,
        outputTokens: result.usage.outputTokens ?? 0,
        costUsd: note?.costUsd ?? 0,
      },
    };
  }
}

/**
 * The JSON object in a reply (a code fence around it is allowed); the reply's text itself when
 * there is none, so the runtime's validation names what came back instead.
 */
export function parseReply(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return JSON.parse(fenced?.[1] ?? trimmed) as unknown;
  } catch {
    return text;
  }
}
