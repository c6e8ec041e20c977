import type { LiveTarget } from '../scenarios/world/live-world.js';
import { UsageError } from './usage-error.js';

/** The flags that name a live server for `run --mode shadow`. */
export interface LiveFlags {
  readonly server?: string | undefined;
  readonly url?: string | undefined;
  readonly header?: readonly string[] | undefined;
}

/**
 * The live server `--server "CMD ARGS…"` or `--url URL [--header 'K: V']…` names, or undefined
 * when neither is given. Checks the flags alone; what they may be combined with is the
 * command's to say.
 */
export function liveTargetFromFlags(flags: LiveFlags): LiveTarget | undefined {
  const headers = flags.header ?? [];
  if (flags.server !== undefined && flags.url !== undefined)
    throw new UsageError(
      'choose one live server: --server "CMD ARGS…" (a command faultline starts) or --url URL',
    );
  if (headers.length > 0 && flags.url === undefined)
    throw new UsageError(
      '--header goes with --url (HTTP headers for the live server); a --server command reads its own credentials from the environment',
    );
  if (flags.server !== undefined) {
    const [command, ...args] = splitCommand(flags.server);
    if (command === undefined)
      throw new UsageError('--server needs a command, e.g. --server "node my-server.js"');
    return { command, args };
  }
  if (flags.url === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(flags.url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL (got "${flags.url}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url must be an http(s) URL (got "${flags.url}")`);
  const parsed: Record<string, string> = {};
  headers.forEach((h, i) => {
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*)$/.exec(h);
    // The value may be a secret: the message names the header's place, never its text.
    if (!m?.[1])
      throw new UsageError(
        `--header #${i + 1} must be 'Name: value' (e.g. 'Authorization: Bearer …')`,
      );
    parsed[m[1]] = m[2] ?? '';
  });
  return { url: url.href, headers: parsed };
}

/**
 * The words of a replay command that name the target again: the command as given, or the URL
 * with `--header …` standing for the headers, which are never written anywhere.
 */
export function liveWords(target: LiveTarget): string[] {
  if ('command' in target)
    return ['--server', quote([target.command, ...(target.args ?? [])].map(quote).join(' '))];
  const words = ['--url', quote(target.url)];
  if (Object.keys(target.headers ?? {}).length > 0) words.push("--header '…'");
  return words;
}

/**
 * Splits a command line into words as a POSIX shell would for plain words and quotes: single
 * quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes
 * escapes the next character. No variables, globs or pipes: the command is run directly.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoteChar: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quoteChar === "'") {
      if (ch === "'") quoteChar = undefined;
      else word += ch;
    } else if (quoteChar === '"') {
      if (ch === '"') quoteChar = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\'))
        word += line[++i] ?? '';
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quoteChar = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i] ?? '';
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quoteChar !== undefined)
    throw new UsageError(`--server: unclosed ${quoteChar} quote in "${line}"`);
  if (inWord) words.push(word);
  return words;
}

/** A word as a shell reads it back: bare when plain, else single-quoted. */
function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
