import type { z } from 'zod';
import { InvalidInputError } from './errors.js';

/** `faults[1].trigger.call` from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

type Issue = z.core.$ZodIssue;

/**
 * A union reports "Invalid input" and hides why each branch failed. Say instead what was
 * wrong with the branch that got furthest: the one whose deepest issue has the longest path
 * (it matched the most), then the one with fewest issues.
 */
function explain(issue: Issue, prefix: readonly PropertyKey[]): string[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const depth = (branch: readonly Issue[]): number =>
      Math.max(...branch.map((i) => i.path.length));
    const best =
      [...issue.errors].sort((a, b) => depth(b) - depth(a) || a.length - b.length)[0] ?? [];
    const lines = best.flatMap((i) => explain(i, path));
    if (lines.length > 0) return lines;
  }
  return [`${formatPath(path)}: ${issue.message}`];
}

/** One line per issue: where, and what was expected (and received, when zod says). */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => explain(issue, []));
}

/**
 * Parses `value` or throws {@link InvalidInputError} naming `source` and each bad field.
 *
 * @example
 * ```ts
 * const contract = parseInput(contractSchema, json, 'contract refunds.json');
 * ```
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: string,
): z.infer<S> {
  if (typeof value === 'object' && value !== null && frozenBySchema.get(schema)?.has(value))
    return value as z.infer<S>;
  const result = schema.safeParse(value);
  if (!result.success) throw new InvalidInputError(source, formatIssues(result.error));
  return result.data;
}

/** Values each schema produced and froze: {@link parseInput} hands them back without parsing. */
const frozenBySchema = new WeakMap<z.ZodType, WeakSet<object>>();
/** Every value {@link freezeParsed} froze, whatever its schema. */
const frozenDeep = new WeakSet<object>();

/** Whether `value` is one {@link freezeParsed} froze all the way down: it can never change. */
export function isFrozenParsed(value: unknown): value is object {
  return typeof value === 'object' && value !== null && frozenDeep.has(value);
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * Freezes a value `schema` produced, all the way down, and remembers it: handed to
 * {@link parseInput} with the same schema again, it is returned as it is, unparsed. For data
 * parsed once and run many times (a scenario's contract and blueprint); frozen, it cannot
 * have changed since.
 */
export function freezeParsed<S extends z.ZodType>(schema: S, value: z.infer<S>): z.infer<S> {
  if (typeof value !== 'object' || value === null) return value;
  deepFreeze(value);
  let frozen = frozenBySchema.get(schema);
  if (!frozen) frozenBySchema.set(schema, (frozen = new WeakSet()));
  frozen.add(value);
  frozenDeep.add(value);
  return value;
}
