import type { RunResult } from './results.js';

/**
 * What runs spent on their model, as every reporter shows it: calls, the tokens the provider
 * reported, cost under the model's prices, and summed provider latency. Runs without a model
 * spend nothing and reports show none of this for them, so a report of a suite without a model
 * reads exactly as it did before models existed.
 */
export interface ModelUsage {
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly modelLatencyMs: number;
}

/** {@link ModelUsage} summed over a set of runs, with how many of them had a model. */
export interface ModelTotals extends ModelUsage {
  /** Runs that had a model. */
  readonly runs: number;
}

/** The model behind a run, as its record names it. */
export type RunModelFacts = NonNullable<RunResult['model']>;

/** Whether a run had a model: one was given to it, or it made model calls. */
export function hadModel(r: RunResult): boolean {
  return r.model !== undefined || r.figures.modelCalls > 0;
}

/** One run's model usage, from its record's figures. */
export function usageOf(r: RunResult): ModelUsage {
  const { modelCalls, inputTokens, outputTokens, costUsd, modelLatencyMs } = r.figures;
  return { modelCalls, inputTokens, outputTokens, costUsd, modelLatencyMs };
}

/**
 * The model usage of the runs that had a model, summed; null when none had one (the reports
 * then show nothing of models at all).
 *
 * @example
 * ```ts
 * const totals = modelTotals(readResults('.faultline').results);
 * if (totals) console.log(usageText(totals));
 * ```
 */
export function modelTotals(results: readonly RunResult[]): ModelTotals | null {
  const runs = results.filter(hadModel);
  if (runs.length === 0) return null;
  const sum = (pick: (u: ModelUsage) => number): number =>
    runs.reduce((total, r) => total + pick(usageOf(r)), 0);
  return {
    runs: runs.length,
    modelCalls: sum((u) => u.modelCalls),
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    // Summed in micro-dollars so a long suite's total does not drift by float error.
    costUsd: Math.round(sum((u) => u.costUsd) * 1e9) / 1e9,
    modelLatencyMs: sum((u) => u.modelLatencyMs),
  };
}

/**
 * US dollars, to the cent from a dollar up and to the millionth below (a call costs fractions
 * of a cent): `$0.000123`, `$0.50`, `$12.34`.
 */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  const fixed = usd.toFixed(6).replace(/0+$/, '');
  const [whole = '0', cents = ''] = fixed.split('.');
  return `$${whole}.${cents.padEnd(2, '0')}`;
}

/** A token count with thousands separators: `12,345`. */
export function formatTokens(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

/** Wall-clock model latency: `350ms`, `4.2s`, then minutes (`3m 5s`). */
export function formatLatency(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  const s = Math.round(ms / 1_000);
  const h = Math.floor(s / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  return [h > 0 && `${h}h`, m > 0 && `${m}m`, s % 60 > 0 && `${s % 60}s`]
    .filter((x): x is string => x !== false)
    .join(' ');
}

/**
 * Usage on one line: `3 model calls · 1,200 in / 340 out tokens · $0.0012 · 1.2s model
 * latency`.
 */
export function usageText(u: ModelUsage): string {
  return (
    `${u.modelCalls} model call${u.modelCalls === 1 ? '' : 's'} · ` +
    `${formatTokens(u.inputTokens)} in / ${formatTokens(u.outputTokens)} out tokens · ` +
    `${formatUsd(u.costUsd)} · ${formatLatency(u.modelLatencyMs)} model latency`
  );
}

/**
 * A run's model as one line: `openai:gpt-4o-mini · prompt sha256:0123456789ab · temperature 0
 * · seed 7` (an unset prompt hash is the agent's built-in prompt; unset settings are left out).
 */
export function modelText(model: RunModelFacts): string {
  return [
    model.id,
    `prompt ${model.promptHash ?? 'built-in'}`,
    model.temperature !== null && `temperature ${model.temperature}`,
    model.seed !== null && `seed ${model.seed}`,
  ]
    .filter((x): x is string => x !== false)
    .join(' · ');
}

/** The distinct models of a set of runs, in the order they first appear, as {@link modelText}. */
export function distinctModels(results: readonly RunResult[]): string[] {
  return [...new Set(results.flatMap((r) => (r.model === undefined ? [] : [modelText(r.model)])))];
}
