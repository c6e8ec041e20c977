import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { modelCassettes } from '../recordings/model-cassettes.js';
import type { ModelCallRecord, RunModel } from '../scenarios/trajectory.js';
import { onRealTime, wallNow } from '../scenarios/virtual-timers.js';
import { withLatency } from '../recordings/record-model.js';
import {
  FAULTLINE_METADATA,
  failedCallLatency,
  meterMiddleware,
  type FaultlineCallMetadata,
} from './meter.js';
import type { ModelSettings, ModelSetup } from './model-setup.js';
import { openProviderModel } from './providers.js';

/** What the engine lends the model layers of one run. */
export interface RunModelHooks {
  runId: string;
  now(): number;
  sequence(): number;
  incarnation(): number;
  /**
   * Marks the run busy while a call is out at the provider (or its cassette is being
   * written): real time passes there, and the virtual clock must not jump meanwhile.
   */
  hold?(): () => void;
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
  /** With `--replay-model`: the run's first cassette miss, which fails the suite, not the run. */
  replayMiss(): Error | undefined;
}

/**
 * The model a run's agent is given, with the harness around the provider, outermost first:
 * the meter (what the agent sent and received, usage, cost, latency), the model faults, the
 * cassette recorder (`--record-model`), then the provider itself — or, with `--replay-model`,
 * the cassette in the provider's place.
 */
export function openRunModel(setup: ModelSetup, hooks: RunModelHooks): OpenedRunModel {
  const cassettes = modelCassettes(setup, hooks.runId);
  const { model: provider, models } = switchableModel(setup, cassettes.replay);
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
  layers.push(holdingMiddleware(hooks));
  if (cassettes.record) layers.push(cassettes.record);
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
    replayMiss: () => cassettes.replay?.miss,
  };
}

/**
 * `model` behind one more layer, outermost: the engine's spend cap (`SpendCap.middleware`) over
 * the run's model, which is what the agent is given. Here, beside {@link openRunModel}, so that
 * the AI SDK loads with the module a run with a model imports, and only then.
 */
export function wrapModel(
  model: LanguageModelV3,
  middleware: LanguageModelV3Middleware,
): LanguageModelV3 {
  return wrapLanguageModel({ model, middleware });
}

/**
 * The provider's part of a call (below the faults, which may wait on the run's clock): the
 * clock is held, the call runs on real time (an agent's virtual timers would otherwise hold
 * the HTTP stack's timeouts to a clock that cannot move), and its wall-clock latency goes to
 * the meter unless a cassette layer below already gave one.
 */
function holdingMiddleware(hooks: RunModelHooks): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => {
      const release = hooks.hold?.();
      const started = wallNow();
      try {
        const result = await onRealTime(doGenerate);
        const note = result.providerMetadata?.[FAULTLINE_METADATA] as
          FaultlineCallMetadata | undefined;
        if (note?.latencyMs !== undefined) return result;
        const latencyMs = Math.round(wallNow() - started);
        return { ...result, providerMetadata: withLatency(result.providerMetadata, latencyMs) };
      } catch (error) {
        if (typeof error === 'object' && error !== null && !failedCallLatency.has(error))
          failedCallLatency.set(error, Math.round(wallNow() - started));
        throw error;
      } finally {
        release?.();
      }
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
 * between the faults and the provider (cassettes) sees the swapped model as the provider. In
 * replay the cassette stays the provider: it holds the swapped model's replies in call order,
 * so a swap changes only the id the run reports.
 */
function switchableModel(
  setup: ModelSetup,
  replay: LanguageModelV3 | undefined,
): { model: LanguageModelV3; models: ModelSwitch } {
  let current = replay ?? openProviderModel(setup);
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
      if (!replay) current = openProviderModel({ ...setup, spec, modelId });
      return spec;
    },
  };
  return { model, models };
}
