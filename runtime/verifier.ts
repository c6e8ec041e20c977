import type { Check } from './blueprint.js';
import type { Contract } from './contract.js';
import type { FailureClass } from './failure-class.js';
import { describePredicate, evaluate, extendScope, resolveValue, type Scope } from './predicate.js';

/** Reads one tool fresh and returns its result, or a failure message (with its class when known). */
export type FreshRead = (
  tool: string,
  args: Record<string, unknown>,
) => Promise<{ ok: true; result: unknown } | { ok: false; message: string; class?: FailureClass }>;

/** Read failures that say the run lost the means to check, not that a check failed. */
const LOST_ACCESS: ReadonlySet<FailureClass> = new Set([
  'unauthenticated',
  'forbidden',
  'budget_exhausted',
]);

export interface Verdict {
  ok: boolean;
  failures: string[];
  /**
   * Set when a check could not be read because the run lost access (credential, permission,
   * budget): the caller reports that class rather than a failed check, so the supervisor stops
   * instead of replanning against state it can no longer see.
   */
  lostAccess?: { class: FailureClass; message: string };
  /**
   * Set when a check's read failed for any other reason (the first such): the check was not
   * judged. A caller for whom a failed check is a verdict (a citation no longer holding) must
   * not take an unread one for it.
   */
  unread?: { class: FailureClass; message: string };
}

/** Runs each check's read fresh and evaluates its predicate over the scope plus `fresh`. */
export async function verifyChecks(
  checks: readonly Check[],
  scope: Scope,
  read: FreshRead,
): Promise<Verdict> {
  const failures: string[] = [];
  let unread: Verdict['unread'];
  for (const check of checks) {
    const args = Object.fromEntries(
      Object.entries(check.read.args).map(([k, v]) => [k, resolveValue(v, scope)]),
    );
    const fresh = await read(check.read.tool, args);
    if (!fresh.ok) {
      failures.push(`${check.description}: could not read ${check.read.tool} (${fresh.message})`);
      if (fresh.class && LOST_ACCESS.has(fresh.class))
        return { ok: false, failures, lostAccess: { class: fresh.class, message: fresh.message } };
      unread ??= { class: fresh.class ?? 'transient', message: fresh.message };
      continue;
    }
    if (!evaluate(check.expect, extendScope(scope, { fresh: fresh.result }))) {
      failures.push(`${check.description}: expected ${describePredicate(check.expect)}`);
    }
  }
  return unread ? { ok: false, failures, unread } : { ok: failures.length === 0, failures };
}

/**
 * Completion criteria before a run may report success: required evidence gathered, the
 * contract's invariants holding, and the blueprint's completion checks passing on fresh reads.
 */
export async function verifyCompletion(
  contract: Contract,
  completion: readonly Check[],
  scope: Scope,
  gatheredFrom: ReadonlySet<string>,
  read: FreshRead,
): Promise<Verdict> {
  const failures: string[] = [];
  for (const e of contract.evidenceRequired) {
    if (!gatheredFrom.has(e.operation))
      failures.push(`evidence ${e.id} (${e.description}) was not gathered`);
  }
  for (const inv of contract.invariants) {
    if (!evaluate(inv.holds, scope))
      failures.push(`invariant ${inv.id} does not hold: ${inv.description}`);
  }
  const checks = await verifyChecks(completion, scope, read);
  failures.push(...checks.failures);
  return { ok: failures.length === 0, failures };
}
