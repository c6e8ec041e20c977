import type { Check } from './blueprint.js';
import type { Contract } from './contract.js';
import type { FailureClass } from './failure-class.js';
import { describePredicate, evaluate, resolveValue, type Scope } from './predicate.js';

/** Reads one tool fresh and returns its result, or a failure message (with its class, when known). */
export type FreshRead = (
  tool: string,
  args: Record<string, unknown>,
) => Promise<{ ok: true; result: unknown } | { ok: false; message: string; class?: FailureClass }>;

export interface Verdict {
  ok: boolean;
  failures: string[];
  /**
   * The world refused a check's read for want of permission (`unauthenticated`, `forbidden`):
   * the check was never evaluated, and the run has lost authority rather than met a failed
   * condition.
   */
  refused?: FailureClass;
}

const PERMISSION_LOST: ReadonlySet<FailureClass> = new Set(['unauthenticated', 'forbidden']);

/** Runs each check's read fresh and evaluates its predicate over the scope plus `fresh`. */
export async function verifyChecks(
  checks: readonly Check[],
  scope: Scope,
  read: FreshRead,
): Promise<Verdict> {
  const failures: string[] = [];
  let refused: FailureClass | undefined;
  for (const check of checks) {
    const args = Object.fromEntries(
      Object.entries(check.read.args).map(([k, v]) => [k, resolveValue(v, scope)]),
    );
    const fresh = await read(check.read.tool, args);
    if (!fresh.ok) {
      failures.push(`${check.description}: could not read ${check.read.tool} (${fresh.message})`);
      if (fresh.class !== undefined && PERMISSION_LOST.has(fresh.class)) {
        refused ??= fresh.class;
        // Nothing more can be read with authority the world has taken away.
        break;
      }
      continue;
    }
    if (!evaluate(check.expect, { ...scope, fresh: fresh.result })) {
      failures.push(`${check.description}: expected ${describePredicate(check.expect)}`);
    }
  }
  return refused === undefined
    ? { ok: failures.length === 0, failures }
    : { ok: false, failures, refused };
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
