import type { RunResult } from './results.js';

/**
 * What a run was made with, aspect by aspect, as `compare` sets two result sets side by side:
 * the agent and its version, the model behind it, the prompt's content hash, the model's
 * temperature and seed, the execution contract's and the policy gate's versions, and the
 * autonomy mode. Reading only the run records keeps `reports/` off the runtime and the models.
 */

/** The aspects of a run's versions, in the order reports show them. */
export const VERSION_ASPECTS = [
  'agent',
  'model',
  'prompt',
  'temperature',
  'model-seed',
  'contract',
  'policy',
  'mode',
] as const;
export type VersionAspect = (typeof VERSION_ASPECTS)[number];

/** One aspect on both sides: the distinct values each side's runs carry, sorted. */
export interface VersionDifference {
  readonly aspect: VersionAspect;
  readonly a: readonly string[];
  readonly b: readonly string[];
  /** The sides do not carry the same set of values. */
  readonly changed: boolean;
}

/** What a value reads when the run has no such thing (no model), or its record predates the field. */
export const NONE = 'none';
export const UNKNOWN = 'unknown';

/**
 * One run's value of an aspect, as text. A model run without `--prompt` uses its agent's default
 * prompt (hash null); one without a temperature or seed leaves the provider's default.
 *
 * @example
 * ```ts
 * versionOf(run, 'prompt'); // 'sha256:1f2e3d4c5b6a'
 * ```
 */
export function versionOf(run: RunResult, aspect: VersionAspect): string {
  const { model } = run;
  switch (aspect) {
    case 'agent':
      return `${run.agent} ${run.agentVersion}`;
    case 'model':
      return model?.id ?? NONE;
    case 'prompt':
      return model ? (model.promptHash ?? 'agent default') : NONE;
    case 'temperature':
      return model ? (model.temperature?.toString() ?? 'provider default') : NONE;
    case 'model-seed':
      return model ? (model.seed?.toString() ?? 'none') : NONE;
    case 'contract':
      return run.contractVersion ?? UNKNOWN;
    case 'policy':
      // null: the agent keeps no policy gate it reports (a black-box agent).
      return run.policyVersion === undefined ? UNKNOWN : (run.policyVersion ?? NONE);
    case 'mode':
      return run.mode;
  }
}

/**
 * Every aspect of A's runs against B's, changed or not, in {@link VERSION_ASPECTS} order.
 *
 * @example
 * ```ts
 * versionDifferences(a, b).filter((d) => d.changed).map((d) => d.aspect); // ['prompt']
 * ```
 */
export function versionDifferences(
  a: readonly RunResult[],
  b: readonly RunResult[],
): VersionDifference[] {
  return VERSION_ASPECTS.map((aspect) => {
    const valuesA = distinct(a, aspect);
    const valuesB = distinct(b, aspect);
    return {
      aspect,
      a: valuesA,
      b: valuesB,
      changed: JSON.stringify(valuesA) !== JSON.stringify(valuesB),
    };
  });
}

function distinct(runs: readonly RunResult[], aspect: VersionAspect): string[] {
  return [...new Set(runs.map((r) => versionOf(r, aspect)))].sort();
}
