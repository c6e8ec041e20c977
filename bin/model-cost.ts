import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelSetup } from '../models/model-setup.js';
import { PENDING_DIR, readResults, type RunResult } from '../reports/results.js';
import { UsageError } from './usage-error.js';

/**
 * `--max-cost USD`, checked: a positive number, and only with a model whose prices are known —
 * without them every call costs $0 and the cap could never stop anything.
 */
export function maxCostOf(value: string | undefined, model: ModelSetup | undefined) {
  if (value === undefined) return undefined;
  const usd = Number(value);
  if (value.trim() === '' || !Number.isFinite(usd) || usd <= 0)
    throw new UsageError(`--max-cost must be a number of US dollars > 0 (got "${value}")`);
  if (!model)
    throw new UsageError('--max-cost caps model spend: give the agent a model with --model');
  if (!model.prices)
    throw new UsageError(
      `--max-cost: no price for ${model.spec}, so its spend cannot be counted: add models.prices['${model.spec}'] = { inputPerMillion, outputPerMillion } (USD) to faultline.config.ts`,
    );
  return usd;
}

/**
 * The line printed before a suite with a model runs. The estimate is what earlier runs of the
 * same model in the folder actually cost (the committed set and an unfinished one), per run,
 * times the runs to make: a model's spend depends on the agent and the scenarios, so a figure
 * from nothing would be a guess. Without such runs it says so plainly.
 */
export function costEstimateLine(model: ModelSetup, runs: number, out: string): string {
  if (!model.prices)
    return `cost: unknown — no price for ${model.spec} in models.prices (tokens are counted; cost is recorded as $0)`;
  if (model.replayDir !== undefined)
    return `cost estimate: $0 — model replies are replayed from ${model.replayDir}, nothing is called`;
  const priced = `${dollars(model.prices.inputPerMillion)} in / ${dollars(model.prices.outputPerMillion)} out per million tokens`;
  const earlier = earlierRuns(out).filter((r) => r.model?.id === model.spec);
  if (earlier.length === 0)
    return `cost estimate: none — no earlier run of ${model.spec} in ${out} to estimate from (${priced}); --max-cost USD stops the suite once its spend passes a cap`;
  const spent = earlier.reduce((sum, r) => sum + r.figures.costUsd, 0);
  const perRun = spent / earlier.length;
  return `cost estimate: ~${dollars(perRun * runs)} for ${String(runs)} run(s) (${dollars(perRun)} a run, the mean of ${String(earlier.length)} earlier run(s) of ${model.spec} in ${out}; ${priced})`;
}

/** USD with enough digits for a cheap call, never in exponent form. */
export function dollars(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** The runs already in the folder (committed, then unfinished); none when there are none. */
function earlierRuns(out: string): RunResult[] {
  const runs: RunResult[] = [];
  for (const dir of [out, join(out, PENDING_DIR)]) {
    if (!existsSync(join(dir, 'results.jsonl'))) continue;
    try {
      runs.push(...readResults(dir, { allowTruncatedTail: true }).results);
    } catch {
      // An unreadable set gives no estimate; the run itself reports what is wrong with it.
    }
  }
  return runs;
}
