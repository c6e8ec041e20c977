import { z } from 'zod';
import { DIMENSIONS, type Dimension } from '../graders/grade.js';
import { suiteMetrics, type SuiteMetrics } from '../graders/metrics.js';
import { toGradedRun } from './graded.js';
import { modelTotals } from './model-usage.js';
import type { NotApplicablePlan } from './not-applicable.js';
import { runResultSchema, type RunResult } from './results.js';

/**
 * The JSON report: the suite's metrics (pass^1 and pass^k per dimension and overall, by
 * workflow class and by tier) beside every run record, in case order. Versioned on its own:
 * the run records inside keep their own format and version.
 */
export const REPORT_FORMAT = 'faultline-report';
export const REPORT_VERSION = 1;

const rate = z.number().min(0).max(1).nullable();
const count = z.number().int().nonnegative();
const passRatesSchema = z.strictObject({ pass1: rate, passK: rate });

const sliceMetricsSchema = z.strictObject({
  runs: count,
  completed: count,
  completionRate: rate,
  meanVirtualMs: z.number().nullable(),
  toolCalls: z.strictObject({ calls: count, ok: count, successRate: rate }),
  retries: z.strictObject({ total: count, mean: z.number().nullable() }),
  humanIntervention: z.strictObject({
    runs: count,
    rate,
    byKind: z.record(z.string(), count),
  }),
  invalidActions: z.strictObject({ findings: count, rate: z.number().nullable() }),
  policyBlocks: z.strictObject({ runs: count, findings: count }),
  duplicateSideEffects: count,
  missingSideEffects: z.strictObject({ runs: count, rate }),
  failedReconciliations: z.strictObject({
    unreconciledRetries: count,
    ambiguousStops: count,
    total: count,
  }),
  checkpointRecoveries: z.strictObject({ crashedRuns: count, recovered: count, rate }),
  evidence: z.strictObject({ runs: count, required: count, linked: count, coverage: rate }),
  passHatK: z.strictObject({
    k: z.number().int().min(1),
    groups: count,
    groupsWithK: count,
    overall: passRatesSchema,
    byDimension: z.strictObject(
      Object.fromEntries(DIMENSIONS.map((d) => [d, passRatesSchema])) as Record<
        Dimension,
        typeof passRatesSchema
      >,
    ),
  }),
  reproducibility: z.strictObject({
    groups: count,
    repeatedGroups: count,
    reproducible: count,
    rate,
    repeatedRate: rate,
    diverged: z.array(
      z.strictObject({
        agent: z.string(),
        scenarioId: z.string(),
        faultPlanId: z.string(),
        seed: z.number().int(),
        runs: count,
      }),
    ),
  }),
});

/** {@link SuiteMetrics} as data: what `metrics` of a JSON report holds. */
export const suiteMetricsSchema = z.strictObject({
  k: z.number().int().min(1),
  overall: sliceMetricsSchema,
  byWorkflowClass: z.record(z.string(), sliceMetricsSchema),
  byTier: z.partialRecord(z.enum(['low', 'medium', 'high']), sliceMetricsSchema),
});

const usageSchema = z.strictObject({
  /** Runs that had a model. */
  runs: count,
  modelCalls: count,
  inputTokens: count,
  outputTokens: count,
  costUsd: z.number().nonnegative(),
  modelLatencyMs: z.number().nonnegative(),
});

/** Model usage of the suite, and of each model with its prompt (absent: no run had a model). */
const modelUsageSchema = z.strictObject({
  total: usageSchema,
  byModel: z.array(
    usageSchema.extend({
      id: z.string(),
      promptHash: z.string().nullable(),
      temperature: z.number().nullable(),
      seed: z.number().nullable(),
    }),
  ),
});

/** A JSON report, as `faultline run --reporter json` writes it. */
export const reportSchema = z.strictObject({
  format: z.literal(REPORT_FORMAT),
  version: z.literal(REPORT_VERSION),
  /** The k of every pass^k in `metrics`. */
  k: z.number().int().min(1),
  metrics: suiteMetricsSchema,
  /** Every run record of the set, in case order. */
  results: z.array(runResultSchema),
  /**
   * Model calls, tokens, cost (USD) and model latency (ms) summed over the runs that had a
   * model, and per model and prompt; each run's own are in its record's `figures`.
   */
  modelUsage: modelUsageSchema.optional(),
  /** Fault plans left out because they cannot apply in the suite's mode (absent: none). */
  notApplicable: z
    .array(
      z.strictObject({
        scenarioId: z.string(),
        faultPlanId: z.string(),
        mode: z.string(),
        reasons: z.array(z.string()),
      }),
    )
    .optional(),
});
export type Report = z.infer<typeof reportSchema>;

type DeepMutable<T> = T extends object ? { -readonly [K in keyof T]: DeepMutable<T[K]> } : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
// The schema must describe exactly what suiteMetrics returns: this fails to compile when
// either side gains a field the other lacks.
type _MetricsMatch = Assert<Same<DeepMutable<SuiteMetrics>, z.infer<typeof suiteMetricsSchema>>>;

/**
 * The report as data: format and version, k, the suite's metrics computed from the records,
 * and the records themselves in case order.
 *
 * @example
 * ```ts
 * const report = jsonReport({ results: readResults('.faultline').results, k: 3 });
 * report.metrics.overall.passHatK.overall.passK;
 * ```
 */
export function jsonReport(input: {
  readonly results: readonly RunResult[];
  readonly k: number;
  readonly notApplicable?: readonly NotApplicablePlan[];
}): Report {
  const results = [...input.results].sort((a, b) => a.index - b.index);
  const metrics = suiteMetrics(results.map(toGradedRun), { k: input.k });
  return {
    format: REPORT_FORMAT,
    version: REPORT_VERSION,
    k: input.k,
    // Plain JSON data already (rates are null, never undefined); the copy drops readonly.
    metrics: structuredClone(metrics) as DeepMutable<SuiteMetrics>,
    results,
    ...modelUsageOf(results),
    ...(input.notApplicable && input.notApplicable.length > 0
      ? { notApplicable: input.notApplicable.map((p) => ({ ...p, reasons: [...p.reasons] })) }
      : {}),
  };
}

/** `{ modelUsage }` when some run had a model, else nothing (the report reads as before). */
function modelUsageOf(results: readonly RunResult[]): Pick<Report, 'modelUsage'> {
  const total = modelTotals(results);
  if (total === null) return {};
  const models = new Map<string, NonNullable<RunResult['model']>>();
  for (const r of results) if (r.model) models.set(JSON.stringify(r.model), r.model);
  return {
    modelUsage: {
      total,
      byModel: [...models.entries()].flatMap(([key, model]) => {
        const usage = modelTotals(results.filter((r) => JSON.stringify(r.model) === key));
        return usage === null ? [] : [{ ...model, ...usage }];
      }),
    },
  };
}

/** The report as JSON text, two-space indented. */
export function renderJson(input: {
  readonly results: readonly RunResult[];
  readonly k: number;
  readonly notApplicable?: readonly NotApplicablePlan[];
}): string {
  return JSON.stringify(jsonReport(input), null, 2);
}
