import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../../graders/grade.js';
import { passHatK } from '../../graders/metrics.js';
import type { RunResult } from '../results.js';
import { html, type Html } from './markup.js';

/** What the summary's filters need to know of one run (the page's JSON data, per run). */
export interface RunFacts {
  /** The run's element key on the page (`run-<n>`). */
  readonly key: string;
  readonly id: string;
  readonly failing: readonly Dimension[];
  readonly kinds: readonly string[];
  readonly pass: boolean;
  readonly state: string;
}

export interface PlacedRun {
  readonly key: string;
  readonly result: RunResult;
}

export function runFacts({ key, result }: PlacedRun): RunFacts {
  return {
    key,
    id: result.id,
    failing: DIMENSIONS.filter((d) => result.grades[d]?.pass === false),
    kinds: [...new Set(result.faultKinds)].sort(),
    pass: result.pass,
    state: result.state,
  };
}

/** The hash that opens a run. */
export function runHref(result: RunResult): string {
  return `#run=${encodeURIComponent(result.id)}`;
}

const pct = (rate: number | null): string => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

/**
 * pass^k per scenario and fault plan (and agent and mode: runs of different agents never share
 * a group), averaged over the groups that ran at least k trials; null when none did.
 */
function passRate(
  results: readonly RunResult[],
  k: number,
  passed: (r: RunResult) => boolean,
): number | null {
  const groups = new Map<string, { n: number; c: number }>();
  for (const r of results) {
    const key = JSON.stringify([r.agent, r.mode, r.scenarioId, r.faultPlanId]);
    const g = groups.get(key) ?? { n: 0, c: 0 };
    g.n++;
    if (passed(r)) g.c++;
    groups.set(key, g);
  }
  const rates = [...groups.values()]
    .map((g) => passHatK(g.n, g.c, k))
    .filter((x): x is number => x !== null);
  return rates.length === 0 ? null : rates.reduce((a, b) => a + b, 0) / rates.length;
}

function mark(pass: boolean, label?: string): Html {
  return html`<span class="mark ${pass ? 'pass' : 'fail'}">${pass ? '✓' : '✗'}${label}</span>`;
}

function option(value: string, label: string): Html {
  return html`<option value="${value}">${label}</option>`;
}

/**
 * The summary: headline figures, pass^1 and pass^k per dimension, filters, and the matrix —
 * one row per run (scenario × fault plan, with agent, mode and trial), a mark per dimension and
 * the overall verdict. Each row links to its run's page.
 */
export function renderSummary(runs: readonly PlacedRun[], k: number): Html {
  const results = runs.map((r) => r.result);
  const passing = results.filter((r) => r.pass).length;
  const distinct = (values: readonly string[]): string[] => [...new Set(values)].sort();
  const kinds = distinct(results.flatMap((r) => r.faultKinds));
  const states = distinct(results.map((r) => r.state));
  const ks = k > 1 ? [1, k] : [1];
  const rateRow = (kk: number): Html =>
    html`<tr>
      <th>pass^${kk}</th>
      <td class="num">${pct(passRate(results, kk, (r) => r.pass))}</td>
      ${DIMENSIONS.map(
        (d) =>
          html`<td class="num">
            ${pct(passRate(results, kk, (r) => r.grades[d]?.pass === true))}
          </td>`,
      )}
    </tr>`;
  return html`<section id="summary">
    <div class="stats">
      <div><strong>${results.length}</strong> runs</div>
      <div><span class="mark pass">✓ ${passing}</span> pass</div>
      <div><span class="mark fail">✗ ${results.length - passing}</span> fail</div>
      <div class="muted">agents: ${distinct(results.map((r) => r.agent)).join(', ') || '–'}</div>
      <div class="muted">scenarios: ${distinct(results.map((r) => r.scenarioId)).length}</div>
      <div class="muted">a run passes when ${CORE_DIMENSIONS.join(', ')} all pass</div>
    </div>
    <table class="rates">
      <thead>
        <tr>
          <th></th>
          <th class="num">overall</th>
          ${DIMENSIONS.map((d) => html`<th class="num">${d}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${ks.map(rateRow)}
      </tbody>
    </table>
    <h2>Runs</h2>
    <form class="filters" id="filters">
      <label
        >dimension
        <select id="filter-dimension">
          ${option('', 'any')}${DIMENSIONS.map((d) => option(d, `failing ${d}`))}
        </select></label
      >
      <label
        >fault kind
        <select id="filter-kind">
          ${option('', 'any')}${option('(none)', 'no faults')}${kinds.map((x) => option(x, x))}
        </select></label
      >
      <label
        >outcome
        <select id="filter-outcome">
          ${option('', 'any')}${option('pass', 'pass')}${option('fail', 'fail')}
        </select></label
      >
      <label
        >final state
        <select id="filter-state">
          ${option('', 'any')}${states.map((s) => option(s, s))}
        </select></label
      >
      <output id="shown" class="muted">${results.length} of ${results.length} runs shown</output>
    </form>
    <div class="matrix-wrap">
      <table class="matrix" id="matrix">
        <thead>
          <tr>
            <th class="num">#</th>
            <th>scenario</th>
            <th>fault plan</th>
            <th>agent</th>
            <th>mode</th>
            <th class="num">trial</th>
            <th>final state</th>
            ${DIMENSIONS.map((d) => html`<th class="dim">${d}</th>`)}
            <th>result</th>
          </tr>
        </thead>
        <tbody>
          ${runs.map(
            ({ key, result: r }) =>
              html`<tr data-run="${key}">
                <td class="num"><a href="${runHref(r)}">${r.index}</a></td>
                <td><a href="${runHref(r)}" title="${r.title}">${r.scenarioId}</a></td>
                <td>
                  ${r.faultPlanId}${r.faultKinds.length > 0 && html` <span class="muted">(${distinct(r.faultKinds).join(', ')})</span>`}
                </td>
                <td>${r.agent}</td>
                <td>${r.mode}</td>
                <td class="num">${r.trial}</td>
                <td>
                  ${r.state}${r.stopReason !== null && html` <span class="muted">(${r.stopReason})</span>`}
                </td>
                ${DIMENSIONS.map((d) => {
                  const g = r.grades[d];
                  if (!g) return html`<td class="dim muted">–</td>`;
                  const codes = distinct(g.findings.map((f) => f.code)).join(', ');
                  return html`<td
                    class="dim"
                    title="${codes || 'no findings'}${g.whiteBoxSkipped ? ' (white-box checks skipped)' : ''}"
                  >
                    ${mark(g.pass, g.findings.length > 0 ? ` ${g.findings.length}` : undefined)}
                  </td>`;
                })}
                <td>
                  ${r.pass ? html`<span class="mark pass">pass</span>` : html`<span class="mark fail">FAIL</span>`}
                </td>
              </tr> `,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
