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

/** One line per issue: where, what was expected, and what was received when zod says. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
}

/**
 * Parses `value` or throws {@link InvalidInputError} naming `source` and each bad field.
 *
 * @example
 * ```ts
 * const contract = parseInput(contractSchema, json, 'contract refunds.json');
 * ```
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, source: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InvalidInputError(source, formatIssues(result.error));
  return result.data;
}
