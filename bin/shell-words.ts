import { UsageError } from './usage-error.js';

/**
 * Splits a command line into words as a POSIX shell would, without running one: words are
 * separated by blanks; single quotes keep everything literally; double quotes keep blanks and
 * single quotes, with `\"` and `\\` escaped inside; a backslash outside quotes escapes the next
 * character. No expansion of any kind (`$HOME`, `*`, `~` stay as written). `flag` names the
 * option in the error for an unclosed quote or an empty command.
 *
 * @example
 * ```ts
 * shellWords(`npx faultline serve 'refunds/partial-refund' --stdio`, '--server');
 * // → ['npx', 'faultline', 'serve', 'refunds/partial-refund', '--stdio']
 * ```
 */
export function shellWords(line: string, flag: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\'))
        word += line.charAt(++i);
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined)
    throw new UsageError(`${flag}: unclosed ${quote} in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  if (words.length === 0)
    throw new UsageError(`${flag} must name a command to start (got ${JSON.stringify(line)})`);
  return words;
}
