import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { ModelCallRecord, RunModel } from '../scenarios/trajectory.js';
import { meterMiddleware } from './meter.js';
import type { ModelSettings, ModelSetup } from './model-setup.js';
import { openProviderModel } from './providers.js';

/** What the engine lends the model layers of one run. */
export interface RunModelHooks {
  runId: string;
  now(): number;
  sequence(): number;
  incarnation(): number;
  /**
   * The run's model faults (the fault injector's layer), between the meter and the provider;
   * given the switch a `model-swap` turns.
   */
  faults?: (models: ModelSwitch) => LanguageModelV3Middleware;
  onCall(call: ModelCallRecord): void;
}

/** A run's model, ready for `run.model`, with the settings and the identity results carry. */
export interface OpenedRunModel {
  model: LanguageModelV3;
  settings: ModelSettings;
  info: RunModel;
}

/**
 * The model a run's agent is given, with the harness around the provider, outermost first:
 * the meter (what the agent sent and received, usage, cost, latency), the model faults, then
 * the provider itself.
 */
export function openRunModel(setup: ModelSetup, hooks: RunModelHooks): OpenedRunModel {
  const { model: provider, models } = switchableModel(setup);
  const layers: LanguageModelV3Middleware[] = [
    meterMiddleware({
      now: () => hooks.now(),
      sequence: () => hooks.sequence(),
      incarnation: () => hooks.incarnation(),
      modelId: () => models.current(),
      ...(setup.prices === undefined ? {} : { prices: setup.prices }),
      onCall: (call) => {
        hooks.onCall(call);
      },
    }),
  ];
  if (hooks.faults) layers.push(hooks.faults(models));
  const model = wrapLanguageModel({ model: provider, middleware: layers });
  const settings: ModelSettings = {
    ...(setup.prompt === undefined ? {} : { system: setup.prompt.text }),
    ...(setup.temperature === undefined ? {} : { temperature: setup.temperature }),
    ...(setup.seed === undefined ? {} : { seed: setup.seed }),
  };
  return {
    model,
    settings,
    info: {
      id: setup.spec,
      promptHash: setup.prompt?.hash ?? null,
      temperature: setup.temperature ?? null,
      seed: setup.seed ?? null,
    },
  };
}

/** Which model a run's calls go to, and the one way to change it mid-run (a `model-swap`). */
export interface ModelSwitch {
  /** `provider:model` the run's calls go to now. */
  current(): string;
  /**
   * Sends every later call to `model` on the run's provider (a bare model id, or
   * `PROVIDER:MODEL` naming the run's provider) and returns the spec now called; undefined when
   * the run's model is a language model object from the API, which cannot be reopened under
   * another id (its calls keep going to it).
   */
  swap(model: string): string | undefined;
}

/**
 * The provider's model behind a switch: the bottom of the run's layers, so whatever sits
 * between the faults and the provider (cassettes) sees the swapped model as the provider.
 */
function switchableModel(setup: ModelSetup): { model: LanguageModelV3; models: ModelSwitch } {
  let current = openProviderModel(setup);
  let spec = setup.spec;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    get provider() {
      return current.provider;
    },
    get modelId() {
      return current.modelId;
    },
    get supportedUrls() {
      return current.supportedUrls;
    },
    doGenerate: (options) => current.doGenerate(options),
    doStream: (options) => current.doStream(options),
  };
  const models: ModelSwitch = {
    current: () => spec,
    swap: (named) => {
      if (setup.languageModel) return undefined;
      const prefix = `${setup.provider}:`;
      const modelId = named.startsWith(prefix) ? named.slice(prefix.length) : named;
      spec = `${setup.provider}:${modelId}`;
      current = openProviderModel({ ...setup, spec, modelId });
      return spec;
    },
  };
  return { model, models };
}
