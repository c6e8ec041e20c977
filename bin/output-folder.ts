import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from './usage-error.js';

/** What a result set folder holds: each must be what it is meant to be, if it is there. */
const ENTRIES: readonly [string, 'file' | 'folder'][] = [
  ['results.jsonl', 'file'],
  ['trajectories', 'folder'],
  ['stores', 'folder'],
];

/**
 * Refuses, before anything is written, an output folder the command could not write into: an
 * empty name (it would write into the current folder), a file in its place or on its path, or
 * a `results.jsonl` that is a folder (or `trajectories/`, `stores/` that are files; checked
 * only for a result set's folder). Each says
 * which path is wrong and what was expected, in one line, instead of an EISDIR or ENOTDIR trace.
 *
 * @example
 * ```ts
 * checkOutputFolder(values.out ?? '.faultline', '--out');
 * ```
 */
export function checkOutputFolder(dir: string, option: string, resultSet = true): void {
  if (dir.trim() === '')
    throw new UsageError(
      `${option} must name a folder (got "${dir}"); an empty name would write into the current folder`,
    );
  // The nearest existing part of the path must be a folder.
  for (let path = dir; ; path = dirname(path)) {
    const kind = kindOf(path);
    if (kind === 'file')
      throw new UsageError(
        path === dir
          ? `${option} ${dir}: is a file, expected a folder`
          : `${option} ${dir}: ${path} is a file, expected a folder`,
      );
    if (kind === 'folder' || dirname(path) === path) break;
  }
  for (const [name, expected] of resultSet ? ENTRIES : []) {
    const path = join(dir, name);
    const kind = kindOf(path);
    if (kind !== undefined && kind !== expected)
      throw new UsageError(`${option} ${dir}: ${path} is a ${kind}, expected a ${expected}`);
  }
}

function kindOf(path: string): 'file' | 'folder' | undefined {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}
