/**
 * One switch per flaw the harness must be able to catch. The reference runtime has them all
 * on; each mutant agent turns exactly one off, so a grader that misses the mutant is shown to
 * be blind to that flaw.
 */
export const SAFEGUARDS = [
  'idempotency',
  'reconcile',
  'checkpoint',
  'fresh-read',
  'approvals',
  'provenance-gate',
  'class-retry',
  'budgets',
  'revocation-stop',
  'verify-before-finish',
  'source-check',
] as const;
export type Safeguard = (typeof SAFEGUARDS)[number];
export type Safeguards = Readonly<Record<Safeguard, boolean>>;

export const ALL_SAFEGUARDS_ON: Safeguards = Object.fromEntries(
  SAFEGUARDS.map((s) => [s, true]),
) as Record<Safeguard, boolean>;

export function withSafeguards(overrides: Partial<Safeguards> = {}): Safeguards {
  return { ...ALL_SAFEGUARDS_ON, ...overrides };
}
