/** Why the HTML report cannot be rendered. */
export type HtmlReportErrorCode = 'invalid-trajectory' | 'invalid-k' | 'unsafe-inline';

/**
 * Input the HTML report cannot render; the message says which run and field, or which option,
 * and what was wrong (`unsafe-inline`: the report's own style or script could end its element
 * early — a defect of the report, not of the input). Never retryable: the same input fails the
 * same way.
 */
export class HtmlReportError extends Error {
  override readonly name = 'HtmlReportError';
  readonly retryable = false;
  constructor(
    readonly code: HtmlReportErrorCode,
    message: string,
    readonly data: { readonly runId?: string; readonly path?: string } = {},
  ) {
    super(message);
  }
}
