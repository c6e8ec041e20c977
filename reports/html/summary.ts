import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../../graders/grade.js';
import {
  distinctModels,
  formatTokens,
  formatUsd,
  hadModel,
  modelTotals,
  usageOf,
  usageText,
} from '../model-usage.js';
import { passRate } from '../pass-rate.js';
import type { RunResult } from '../results.js';
import { html, type Html } from './markup.js';
import { shownText } from './visible-text.js';

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

/** How a run's scenario expects it to end (from its trajectory). */
export interface ExpectedEnd {
  readonly state: string;
  readonly stopReason: string | null;
}

export interface PlacedRun {
  readonly key: string;
  readonly result: RunResult;
  /** The end the scenario expects; null when the run has no trajectory to say. */
  readonly expected: ExpectedEnd | null;
}

export function runFacts({ key, result }: PlacedRun): RunFacts {
  return {
    key,
    id: result.id,
    failing: DIMENSIONS.filter((d) => result.grades[d]?.pass === false),
    // As the filters' options show them (controls spelled out), or a filter would never match.
    kinds: [...new Set(result.faultKinds)].sort().map(shownText),
    pass: result.pass,
    state: shownText(result.state),
  };
}

/** The hash that opens a run. */
export function runHref(result: RunResult): string {
  return `#run=${encodeURIComponent(result.id)}`;
}

const pct = (rate: number | null): string => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

/** How a state and its stop reason read: `failed (approval-denied)`. */
export function endText(state: string, stopReason: string | null): string {
  return stopReason === null ? state : `${state} (${stopReason})`;
}

/** What a grade's mark says, in its cell's title. */
export const WHITE_BOX_SKIPPED =
  'white-box checks skipped: the agent exposes no records, so only its black-box checks ran';

/**
 * A dimension's mark: ✓ pass, ✗ fail (with its number of findings), and ◐ for a pass that
 * rests on black-box checks alone because the white-box ones could not run — a pass nobody
 * checked in full must not look like one that was.
 */
function dimensionCell(grade: RunResult['grades'][Dimension] | undefined): Html {
  if (!grade) return html`<td class="dim muted" title="not graded">–</td>`;
  if (grade.notApplicable !== undefined)
    return html`<td class="dim muted" title="not applicable: ${grade.notApplicable}">n/a</td>`;
  const codes = [...new Set(grade.findings.map((f) => f.code))].sort().join(', ');
  const count = grade.findings.length > 0 ? ` ${grade.findings.length}` : '';
  const skipped = grade.whiteBoxSkipped ? ` · ${WHITE_BOX_SKIPPED}` : '';
  if (!grade.pass)
    return html`<td class="dim" title="${codes}${skipped}">
      <span class="mark fail">✗${count}</span>
    </td>`;
  if (grade.whiteBoxSkipped)
    return html`<td class="dim" title="black-box checks pass${codes && ` (${codes})`}${skipped}">
      <span class="mark skip">◐${count}</span>
    </td>`;
  return html`<td class="dim" title="${codes || 'no findings'}">
    <span class="mark pass">✓${count}</span>
  </td>`;
}

/**
 * The end the scenario expects, marked ✓ when the run ended that way (state, stop reason and
 * world) and ✗ with what differed otherwise — so a run that "failed" as its scenario demands
 * reads as the success it is.
 */
function expectedCell(r: RunResult, expected: ExpectedEnd | null): Html {
  const asExpected = r.mismatches.length === 0;
  const text =
    expected !== null
      ? endText(expected.state, expected.stopReason)
      : asExpected
        ? 'as it ended'
        : 'not as it ended';
  const why = asExpected ? 'the run ended as its scenario expects' : r.mismatches.join('\n');
  // Each mismatch starts with what differs (`state: …`, `world: …`); the row names those, the
  // title and the run's page say the rest.
  const differs = [...new Set(r.mismatches.map((m) => m.split(':', 1)[0] ?? m))].join(', ');
  return html`<td class="expected" title="${why}">
    <span class="mark ${asExpected ? 'pass' : 'fail'}">${asExpected ? '✓' : '✗'}</span>
    ${text}${!asExpected && html`<div class="why">${differs} differ${r.mismatches.length === 1 ? 's' : ''}</div>`}
  </td>`;
}

/** A run's model usage in the matrix: tokens and cost, the rest in its title. */
function usageCell(r: RunResult): Html {
  if (!hadModel(r)) return html`<td class="num muted" title="no model">–</td>`;
  const u = usageOf(r);
  return html`<td class="num usage" title="${usageText(u)}">
    ${formatTokens(u.inputTokens + u.outputTokens)} tok
    <div class="muted">${formatUsd(u.costUsd)}</div>
  </td>`;
}

/** A slash-separated id that may break after each slash. */
function breakable(id: string): Html {
  return html`${id.split('/').map((part, i) => (i === 0 ? part : html`/<wbr />${part}`))}`;
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
  // Only a suite with a model says anything of models: without one the page reads as before.
  const totals = modelTotals(results);
  // Joined to the markup beside them, so a page without a model keeps its bytes.
  const modelStats =
    totals !== null &&
    html`<div class="muted" id="models">models: ${distinctModels(results).join('; ') || '–'}</div>
      <div id="model-usage">
        model usage of ${totals.runs} run${totals.runs === 1 ? '' : 's'}: ${usageText(totals)}
      </div>`;
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
      ${[html`<div class="muted">a run passes when ${CORE_DIMENSIONS.join(', ')} all pass</div>`, modelStats]}
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
            <th class="verdict">result</th>
            <th>scenario</th>
            <th>fault plan</th>
            <th>agent · mode</th>
            <th class="num">trial</th>
            <th>ended</th>
            <th>expected end</th>
            ${[
              totals !== null && html`<th class="num">model usage</th>`,
              DIMENSIONS.map((d) => html`<th class="dim"><span>${d}</span></th>`),
            ]}
          </tr>
        </thead>
        <tbody>
          ${runs.map(
            ({ key, result: r, expected }) =>
              html`<tr data-run="${key}">
                <td class="num"><a href="${runHref(r)}">${r.index}</a></td>
                <td class="verdict">
                  ${r.pass ? html`<span class="mark pass">pass</span>` : html`<span class="mark fail">FAIL</span>`}
                </td>
                <td class="scenario">
                  <a href="${runHref(r)}" title="${r.title}">${breakable(r.scenarioId)}</a>
                </td>
                <td class="plan">
                  ${r.faultPlanId}${r.faultKinds.length > 0 && html`<div class="kinds muted">${distinct(r.faultKinds).join(', ')}</div>`}
                </td>
                <td class="agent">
                  ${r.agent}
                  <div class="muted">${r.mode}</div>
                </td>
                <td class="num">${r.trial}</td>
                <td>${endText(r.state, r.stopReason)}</td>
                ${[
                  expectedCell(r, expected),
                  ' ',
                  totals !== null && usageCell(r),
                  DIMENSIONS.map((d) => dimensionCell(r.grades[d])),
                ]}
              </tr> `,
          )}
        </tbody>
      </table>
    </div>
    <p class="legend muted">
      <span class="mark pass">✓</span> pass · <span class="mark fail">✗ n</span> fail, with n
      findings · <span class="mark skip">◐</span> black-box checks pass, white-box checks skipped
      (the agent exposes no records) · – not graded. Expected end: ✓ the run ended as its scenario
      expects (a stop can be the right end), ✗ it did not, and why.
    </p>
  </section>`;
}
