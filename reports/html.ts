import { HtmlReportError } from './html/html-report-error.js';
import { html, inlineElement, jsonScript, type Html } from './html/markup.js';
import { renderRunPage } from './html/run-page.js';
import { MODEL_CSS, REPORT_CSS } from './html/style.js';
import { modelTotals } from './model-usage.js';
import { renderSummary, runFacts, type PlacedRun } from './html/summary.js';
import { buildTimeline } from './html/timeline.js';
import { trajectoryView } from './html/trajectory-view.js';
import { VIEWER_SCRIPT } from './html/viewer-script.js';
import { readTranscript } from './model-transcript.js';
import type { RunResult } from './results.js';

export { HtmlReportError, type HtmlReportErrorCode } from './html/html-report-error.js';

/** What the HTML report renders: a result set, the k of pass^k, and each run's trajectory. */
export interface HtmlReportInput {
  readonly results: readonly RunResult[];
  /** Trials per scenario and fault plan for pass^k (1: pass^1 only). */
  readonly k: number;
  /**
   * The run's parsed trajectory file (`result.trajectoryFile`); null or undefined when it has
   * none (the run's page says so).
   */
  trajectory(result: RunResult): unknown;
}

export interface HtmlReportOptions {
  /** The page's heading and title (default "faultline report"). */
  readonly title?: string;
}

/**
 * Renders a result set as one self-contained HTML page: a summary matrix (scenario × fault plan,
 * a mark per dimension, the verdict) with filters by failing dimension, fault kind, verdict and
 * final state, and a page per run (`#run=<id>`) with its grades and its trajectory as a
 * timeline, each finding linked to the events it cites, and — for a run with a model — its model
 * transcript beside the timeline, with tokens, cost and latency per call. No network and no
 * external assets: the style sheet and the one script are inline, and the page's
 * Content-Security-Policy allows only those two (by hash) and nothing else — no fetches, no
 * images, no other script.
 *
 * Text from worlds, agents and results is escaped everywhere (markup is only ever built with
 * the `html` tag of reports/html/markup.ts); the data the script reads sits in a JSON element
 * with `<` escaped; the script writes text with `textContent` only. The output depends on the
 * input alone: the same result set renders to the same bytes.
 *
 * @example
 * ```ts
 * const { results } = readResults('.faultline/runs/latest');
 * const page = renderHtmlReport({ results, k: 1, trajectory: () => null });
 * page.startsWith('<!doctype html>'); // true
 * ```
 */
export function renderHtmlReport(input: HtmlReportInput, options: HtmlReportOptions = {}): string {
  if (!Number.isSafeInteger(input.k) || input.k < 1)
    throw new HtmlReportError('invalid-k', `k must be a whole number ≥ 1 (got ${input.k})`);
  const title = options.title ?? 'faultline report';
  const sorted = [...input.results].sort(
    (a, b) => a.index - b.index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  // One trajectory at a time: its page and the end it expects (for the summary) are all kept.
  const runs: PlacedRun[] = [];
  const pages = sorted.map((result, i) => {
    const key = `run-${i}`;
    const raw = input.trajectory(result);
    const trajectory = trajectoryView(result.id, raw);
    runs.push({ key, result, expected: trajectory?.expected ?? null });
    return renderRunPage({
      key,
      result,
      trajectory,
      timeline: trajectory ? buildTimeline(trajectory) : null,
      transcript: readTranscript(raw),
    });
  });
  const transcripts = pages.length > 0 && modelTotals(sorted) !== null;
  const style = inlineElement('style', transcripts ? REPORT_CSS + MODEL_CSS : REPORT_CSS);
  const script = inlineElement('script', VIEWER_SCRIPT);
  const csp = [
    "default-src 'none'",
    `style-src ${style.hash}`,
    `script-src ${script.hash}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const page: Html = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="Content-Security-Policy" content="${csp}" />
        <meta name="referrer" content="no-referrer" />
        <meta name="generator" content="faultline" />
        <title>${title}</title>
        ${style.element}
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          ${renderSummary(runs, input.k)} ${pages}
        </main>
        ${jsonScript('report-data', { runs: runs.map(runFacts) })} ${script.element}
      </body>
    </html> `;
  return page.toString();
}

/**
 * The HTML reporter: `report.html`, one self-contained page with the summary matrix and a
 * trajectory viewer per run (see {@link renderHtmlReport}).
 *
 * @example
 * ```ts
 * const page = htmlReporter.render({ results: [], k: 1, trajectory: () => null });
 * ```
 */
export const htmlReporter = {
  name: 'html',
  description:
    'one self-contained HTML page: a filterable summary matrix and each run’s trajectory with its findings',
  file: 'report.html',
  /** `color` is for terminals: the page has its own light and dark schemes. */
  render(input: HtmlReportInput, _options?: { readonly color: boolean }): string {
    return renderHtmlReport(input);
  },
};
