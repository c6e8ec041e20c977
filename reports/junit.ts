import { CORE_DIMENSIONS, DIMENSIONS } from '../graders/grade.js';
import { gradeOf, runPassed } from './graded.js';
import {
  hadModel,
  modelText,
  modelTotals,
  usageOf,
  usageText,
  type ModelUsage,
} from './model-usage.js';
import type { RunResult } from './results.js';

/**
 * JUnit XML for CI: one `<testsuite>` per scenario (Jenkins, GitLab and GitHub test reporters
 * all group by it), one `<testcase>` per run named `scenario / fault plan / trial N`, with
 * class name `faultline.<world>` and the run's wall time. A failing run gets one `<failure>`
 * per failing core dimension (outcome, policy, integrity, recovery: the ones that fail a run),
 * typed by the dimension, its message the finding codes and its text the findings and the
 * replay command. Parsers that read only the first `<failure>` still see a core dimension's.
 * `<system-out>` repeats every finding, in every dimension, with the seed and replay command.
 *
 * When runs had a model, `<properties>` carry it and what it spent — `model`, `model.promptHash`,
 * `model.calls`, `model.inputTokens`, `model.outputTokens`, `model.costUsd`,
 * `model.latencyMs` — for the whole suite (under `<testsuites>`), each scenario and each run.
 * Without a model the XML is as it always was.
 *
 * @example
 * ```ts
 * writeFileSync('report.xml', renderJunit({ results: readResults('.faultline').results }));
 * ```
 */
export function renderJunit(input: { readonly results: readonly RunResult[] }): string {
  const results = [...input.results].sort((a, b) => a.index - b.index);
  // Agent and mode join the test name only when a scenario ran under more than one: names
  // must stay unique for CI to tell runs apart.
  const splits = (key: (r: RunResult) => string): boolean =>
    results.some((r) => results.some((o) => o.scenarioId === r.scenarioId && key(o) !== key(r)));
  const byAgent = splits((r) => r.agent);
  const byMode = splits((r) => r.mode);
  const suites = new Map<string, RunResult[]>();
  for (const r of results) {
    const suite = suites.get(r.scenarioId);
    if (suite === undefined) suites.set(r.scenarioId, [r]);
    else suite.push(r);
  }

  const failedRuns = results.filter((r) => !runPassed(r)).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="faultline" tests="${results.length}" failures="${failedRuns}" errors="0" skipped="0" time="${seconds(results)}">`,
    ...modelProperties(results, '  '),
  ];
  for (const [scenarioId, runs] of suites) {
    lines.push(
      `  <testsuite name="${attr(scenarioId)}" tests="${runs.length}" failures="${runs.filter((r) => !runPassed(r)).length}" errors="0" skipped="0" time="${seconds(runs)}">`,
      ...modelProperties(runs, '    '),
    );
    for (const r of runs) {
      const name = [
        r.scenarioId,
        r.faultPlanId,
        `trial ${r.trial}`,
        ...(byAgent ? [r.agent] : []),
        ...(byMode ? [r.mode] : []),
      ].join(' / ');
      const open = `    <testcase name="${attr(name)}" classname="faultline.${attr(r.world)}" time="${seconds([r])}"`;
      const failures = failuresOf(r);
      const findings = DIMENSIONS.some((d) => gradeOf(r, d).findings.length > 0);
      const properties = modelProperties([r], '      ');
      if (failures.length === 0 && !findings && properties.length === 0) {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`, ...properties);
      if (failures.length === 0 && !findings) {
        lines.push('    </testcase>');
        continue;
      }
      for (const f of failures) {
        lines.push(
          `      <failure message="${attr(f.message)}" type="${attr(f.type)}">${text(f.text)}</failure>`,
        );
      }
      lines.push(`      <system-out>${text(summary(r))}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n');
}

interface Failure {
  readonly type: string;
  readonly message: string;
  readonly text: string;
}

/** One failure per failing core dimension; a run that failed otherwise fails on its ending. */
function failuresOf(r: RunResult): Failure[] {
  if (runPassed(r)) return [];
  const replay = `replay: ${r.replay}`;
  const failures = CORE_DIMENSIONS.flatMap((d): Failure[] => {
    const grade = gradeOf(r, d);
    if (grade.pass) return [];
    const codes = [...new Set(grade.findings.map((f) => f.code))];
    return [
      {
        type: d,
        message: `${d}: ${codes.length > 0 ? codes.join(', ') : 'failed'}`,
        text: [...grade.findings.map((f) => `${f.code}: ${f.message}`), replay].join('\n'),
      },
    ];
  });
  if (failures.length > 0) return failures;
  return [
    {
      type: 'outcome',
      message: 'outcome: ended unlike its scenario expects',
      text: [...r.mismatches, replay].join('\n'),
    },
  ];
}

/** Everything about the run a CI page should show, plain text. */
function summary(r: RunResult): string {
  const lines = [
    `run ${r.id}`,
    `agent ${r.agent} · mode ${r.mode} · seed ${r.seed} · fault plan ${r.faultPlanId}${r.faultKinds.length > 0 ? ` (${r.faultKinds.join(', ')})` : ''}`,
    `ended ${r.state}${r.stopReason ? ` (${r.stopReason})` : ''}${r.detail ? `: ${r.detail}` : ''}`,
    ...(r.model ? [`model ${modelText(r.model)} · ${usageText(usageOf(r))}`] : []),
    ...r.mismatches.map((m) => `mismatch: ${m}`),
    // Shown, never a failure: these faults could not reach the agent.
    ...(r.faultsNotApplicable ?? []).map(
      (f) => `not applicable: fault ${f.index} (${f.kind}): ${f.reason}`,
    ),
  ];
  for (const d of DIMENSIONS) {
    const grade = gradeOf(r, d);
    for (const f of grade.findings) lines.push(`${d} · ${f.code}: ${f.message}`);
  }
  lines.push(`replay: ${r.replay}`);
  return lines.join('\n');
}

/**
 * The model and its usage as `<properties>` (a distinct model or prompt each get a `model` and
 * `model.promptHash` property); nothing when none of the runs had a model.
 */
function modelProperties(runs: readonly RunResult[], indent: string): string[] {
  const totals = modelTotals(runs.filter(hadModel));
  if (totals === null) return [];
  const models = new Set(runs.flatMap((r) => (r.model ? [r.model.id] : [])));
  const prompts = new Set(runs.flatMap((r) => (r.model ? [r.model.promptHash ?? 'built-in'] : [])));
  const usage: [string, keyof ModelUsage][] = [
    ['model.calls', 'modelCalls'],
    ['model.inputTokens', 'inputTokens'],
    ['model.outputTokens', 'outputTokens'],
    ['model.costUsd', 'costUsd'],
    ['model.latencyMs', 'modelLatencyMs'],
  ];
  const property = (name: string, value: string | number): string =>
    `${indent}  <property name="${attr(name)}" value="${attr(String(value))}"/>`;
  return [
    `${indent}<properties>`,
    ...[...models].map((m) => property('model', m)),
    ...[...prompts].map((p) => property('model.promptHash', p)),
    ...usage.map(([name, key]) => property(name, totals[key])),
    `${indent}</properties>`,
  ];
}

function seconds(runs: readonly RunResult[]): string {
  return (runs.reduce((sum, r) => sum + r.figures.wallMs, 0) / 1000).toFixed(3);
}

/**
 * Characters XML 1.0 does not allow anywhere, escaped or not: controls other than tab, line
 * feed and carriage return, lone surrogates, U+FFFE and U+FFFF. They are dropped.
 */
const ILLEGAL = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Element text: markup characters escaped, carriage returns kept as references. */
function text(s: string): string {
  return s
    .replace(ILLEGAL, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

/** An attribute value: as text, plus tabs and line breaks as references (parsers fold them). */
function attr(s: string): string {
  return text(s).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}
