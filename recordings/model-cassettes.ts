import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import { recordModelMiddleware } from './record-model.js';
import { ReplayModel } from './replay-model.js';

/** What a run's model setup says about cassettes (a slice of `ModelSetup`). */
export interface CassetteSetup {
  readonly spec: string;
  readonly provider: string;
  readonly modelId: string;
  readonly recordDir?: string;
  readonly replayDir?: string;
}

/**
 * The cassette layers of one run: with `replayDir`, a model that replaces the provider; with
 * `recordDir`, a layer that records the provider's calls. Replay wins when both are given
 * (recording a replay would copy the cassette).
 */
export function modelCassettes(
  setup: CassetteSetup,
  runId: string,
): { replay?: ReplayModel; record?: LanguageModelV3Middleware } {
  if (setup.replayDir !== undefined)
    return {
      replay: new ReplayModel({
        dir: setup.replayDir,
        runId,
        model: setup.spec,
        provider: setup.provider,
        modelId: setup.modelId,
      }),
    };
  if (setup.recordDir !== undefined)
    return {
      record: recordModelMiddleware({
        dir: setup.recordDir,
        runId,
        model: setup.spec,
        provider: setup.provider,
      }),
    };
  return {};
}
