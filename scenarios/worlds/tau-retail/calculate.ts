import { WorldError } from '../../world/world-error.js';

/**
 * Evaluates an arithmetic expression of numbers, `+ - * /` and parentheses, rounded to cents,
 * as the store's `calculate` tool answers. Parsed, never evaluated as code: anything else in
 * the expression is `invalid_argument`.
 *
 * @example
 * ```ts
 * calculate('652.61 + 473.43'); // '1126.04'
 * ```
 */
export function calculate(expression: string): string {
  if (!/^[0-9+\-*/().\s]+$/.test(expression))
    throw new WorldError(
      'invalid_argument',
      `expression may hold only numbers, + - * / and parentheses (got "${expression}")`,
    );
  const tokens = expression.match(/\d+(?:\.\d*)?|\.\d+|[+\-*/()]/g) ?? [];
  let at = 0;
  const fail = (why: string): never => {
    throw new WorldError('invalid_argument', `cannot calculate "${expression}": ${why}`);
  };
  const primary = (): number => {
    const token = tokens[at++];
    if (token === undefined) return fail('it ends too soon');
    if (token === '(') {
      const value = sum();
      if (tokens[at++] !== ')') fail('a parenthesis is not closed');
      return value;
    }
    if (token === '-') return -primary();
    if (token === '+') return primary();
    const value = Number(token);
    return Number.isFinite(value) ? value : fail(`"${token}" is not a number`);
  };
  const product = (): number => {
    let value = primary();
    for (let op = tokens[at]; op === '*' || op === '/'; op = tokens[at]) {
      at++;
      const right = primary();
      if (op === '/' && right === 0) fail('division by zero');
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    for (let op = tokens[at]; op === '+' || op === '-'; op = tokens[at]) {
      at++;
      value = op === '+' ? value + product() : value - product();
    }
    return value;
  };
  const value = sum();
  if (at !== tokens.length) fail(`unexpected "${tokens[at] ?? ''}"`);
  return String(roundCents(value));
}

/** Rounds money to cents, as every amount the store records is. */
export function roundCents(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}
