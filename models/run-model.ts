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
  /** The run's model faults (the fault injector's layer), between the meter and the provider. */
  faults?: LanguageModelV3Middleware;
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
  const provider = openProviderModel(setup);
  const current = setup.spec;
  const layers: LanguageModelV3Middleware[] = [
    meterMiddleware({
      now: () => hooks.now(),
      sequence: () => hooks.sequence(),
      incarnation: () => hooks.incarnation(),
      modelId: () => current,
      ...(setup.prices === undefined ? {} : { prices: setup.prices }),
      onCall: (call) => {
        hooks.onCall(call);
      },
    }),
  ];
  if (hooks.faults) layers.push(hooks.faults);
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
