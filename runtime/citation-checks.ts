import type { Check, CitationCheck } from './blueprint.js';
import { canonicalJson } from './canonical-json.js';
import { readPath, type Predicate, type Scope, type ValueExpr } from './predicate.js';

/** The name a citation with `each` gives the element it checks: `{ $ref: 'cited.source_id' }`. */
export const CITED = 'cited';

/** A write's claim-to-source checks made concrete for the arguments it is sent with. */
export interface ExpandedCitations {
  /** One plain check per citation without `each`, and one per element of each `each` list. */
  readonly checks: Check[];
  /** A citation whose `each` does not name a list: the write cannot be checked, so not sent. */
  readonly malformed: string[];
}

const NO_CITATIONS: ExpandedCitations = { checks: [], malformed: [] };

/**
 * Makes `citations` concrete over `scope` (the run's results plus the write's `args`): a
 * citation with `each` becomes one check per element of the list at that path, with `cited`
 * rewritten to the element's path (`cited.source_id` → `args.claims.2.source_id`), so every
 * element is checked however many the planner put in the write. An absent list has no
 * elements; a value that is not a list is `malformed` (the checks fail closed).
 *
 * @example
 * ```ts
 * const { checks } = expandCitations(op.citations, { args: { claims: [{ claim_id: 'c1', source_id: 's1' }] } });
 * ```
 */
export function expandCitations(
  citations: readonly CitationCheck[],
  scope: Scope,
): ExpandedCitations {
  if (citations.length === 0) return NO_CITATIONS;
  const checks: Check[] = [];
  const malformed: string[] = [];
  for (const citation of citations) {
    const { each, ...check } = citation;
    if (each === undefined) {
      checks.push(check);
      continue;
    }
    const list = readPath(scope, each);
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      malformed.push(`${check.description}: ${each} is not a list (got ${canonicalJson(list)})`);
      continue;
    }
    list.forEach((element: unknown, i) => {
      const at = `${each}.${i}`;
      checks.push({
        description: `${check.description} (${each}[${i}] = ${canonicalJson(element)})`,
        read: {
          tool: check.read.tool,
          args: Object.fromEntries(
            Object.entries(check.read.args).map(([k, v]) => [k, rebindValue(v, at)]),
          ),
        },
        expect: rebindPredicate(check.expect, at),
      });
    });
  }
  return { checks, malformed };
}

/** `cited` or `cited.x` → `at` or `at.x`; any other path unchanged. */
function rebindPath(path: string, at: string): string {
  if (path === CITED) return at;
  return path.startsWith(`${CITED}.`) ? `${at}${path.slice(CITED.length)}` : path;
}

function rebindValue(expr: ValueExpr, at: string): ValueExpr {
  if (expr === null || typeof expr !== 'object') return expr;
  if (Array.isArray(expr)) return expr.map((e) => rebindValue(e, at));
  return { $ref: rebindPath(expr.$ref, at) };
}

function rebindPredicate(predicate: Predicate, at: string): Predicate {
  if ('all' in predicate) return { all: predicate.all.map((p) => rebindPredicate(p, at)) };
  if ('any' in predicate) return { any: predicate.any.map((p) => rebindPredicate(p, at)) };
  if ('not' in predicate) return { not: rebindPredicate(predicate.not, at) };
  if ('some' in predicate)
    return {
      some: {
        path: rebindPath(predicate.some.path, at),
        where: rebindPredicate(predicate.some.where, at),
      },
    };
  return {
    path: rebindPath(predicate.path, at),
    op: predicate.op,
    ...(predicate.value === undefined ? {} : { value: rebindValue(predicate.value, at) }),
  };
}
