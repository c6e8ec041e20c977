import { htmlReporter } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import type { NotApplicablePlan } from './not-applicable.js';
import type { RunResult } from './results.js';
import { renderTable } from './table.js';

/** What every reporter renders: a result set's runs, the k of pass^k, and each run's trajectory. */
export interface ReportInput {
  readonly results: readonly RunResult[];
  /** The k of pass^k (≥ 1); usually the number of trials. */
  readonly k: number;
  /** The run's trajectory as parsed JSON, or undefined when it cannot be read. */
  trajectory(result: RunResult): unknown;
  /** Fault plans the suite left out because they cannot apply in its mode. */
  readonly notApplicable?: readonly NotApplicablePlan[];
}

/**
 * A way to render a result set, registered by name: what `--reporter NAME` picks and the file
 * it is written to. Renderers are pure: the same input gives the same text.
 */
export interface Reporter {
  readonly name: string;
  /** One line, for `--help`. */
  readonly description: string;
  /** The file name the report is written to, e.g. `report.xml`. */
  readonly file: string;
  render(input: ReportInput, options: { readonly color: boolean }): string;
}

/**
 * Every reporter by name. `html` (the report with the trajectory viewer) is added by the lead.
 *
 * @example
 * ```ts
 * const text = REPORTERS.junit?.render({ results, k: 1, trajectory: () => undefined }, { color: false });
 * ```
 */
export const REPORTERS: Readonly<Record<string, Reporter>> = {
  table: {
    name: 'table',
    description:
      'scenario × fault plan with a mark per dimension, totals, pass^1 and pass^k, then each failure with its replay command',
    file: 'report.txt',
    render: (input, options) => renderTable(input, options),
  },
  json: {
    name: 'json',
    description: 'suite metrics and every run record, versioned (format faultline-report)',
    file: 'report.json',
    render: (input) => renderJson(input),
  },
  junit: {
    name: 'junit',
    description: 'JUnit XML for CI: a test suite per scenario, a test case per run',
    file: 'report.xml',
    render: (input) => renderJunit(input),
  },
  html: htmlReporter,
};

/** An unknown reporter name; the message lists the known ones, in one line. */
export class UnknownReporterError extends Error {
  override readonly name = 'UnknownReporterError';
  constructor(
    readonly reporter: string,
    readonly known: readonly string[],
  ) {
    super(`unknown reporter "${reporter}" (reporters: ${known.join(', ')})`);
  }
}

/**
 * The reporter registered under `name`; throws {@link UnknownReporterError} when there is
 * none.
 *
 * @example
 * ```ts
 * writeFileSync(reporter('junit').file, reporter('junit').render(input, { color: false }));
 * ```
 */
export function reporter(name: string): Reporter {
  const found = Object.hasOwn(REPORTERS, name) ? REPORTERS[name] : undefined;
  if (!found) throw new UnknownReporterError(name, Object.keys(REPORTERS));
  return found;
}
