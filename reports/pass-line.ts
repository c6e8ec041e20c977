import { DIMENSIONS } from '../graders/grade.js';
import type { SuiteMetrics } from '../graders/metrics.js';

const pct = (rate: number | null): string => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

/** One line of pass^1 per dimension and overall, then the suite's headline metrics. */
export function renderPassLine(metrics: SuiteMetrics): string {
  const m = metrics.overall;
  const dims = DIMENSIONS.map((d) => `${d} ${pct(m.passHatK.byDimension[d].pass1)}`).join(' · ');
  return [
    `pass^1 ${pct(m.passHatK.overall.pass1)} overall — ${dims}`,
    `completion ${pct(m.completionRate)} · tool success ${pct(m.toolCalls.successRate)} · retries ${m.retries.total} · ` +
      `human interventions ${pct(m.humanIntervention.rate)} · duplicates ${m.duplicateSideEffects} · ` +
      `evidence coverage ${pct(m.evidence.coverage)}`,
  ].join('\n');
}
