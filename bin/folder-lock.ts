import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

/** The lock file in a result set folder: the pid of the one process writing there. */
export const LOCK_FILE = '.lock';

/**
 * The right to write into a result set folder. Two writers in one folder interleave records,
 * share run stores and leave a set with runs twice; the second one is refused instead. The
 * lock is a file created exclusively, holding the writer's pid: a lock whose process is gone
 * (killed, say) is stale, and the next writer takes it over.
 *
 * @example
 * ```ts
 * const lock = FolderLock.take('.faultline', 'run');
 * try { … } finally { lock.release(); }
 * ```
 */
export class FolderLock {
  private released = false;

  private constructor(readonly file: string) {}

  /** Takes the folder's lock (creating the folder), or throws a {@link UsageError} naming the holder. */
  static take(dir: string, command: string): FolderLock {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, LOCK_FILE);
    // Written whole beside it, then linked into place: the lock never exists half-written.
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ pid: process.pid, command })}\n`);
    try {
      // Twice at most: once as found, once after removing a stale lock.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          linkSync(temp, file);
          return new FolderLock(file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const holder = lockHolder(file);
        if (holder !== undefined && holder.pid !== process.pid && processAlive(holder.pid)) {
          throw new UsageError(
            `${dir} is in use by another faultline ${holder.command} (pid ${holder.pid}); wait for it to end or choose another --out`,
          );
        }
        // The holder is gone without releasing it (killed): the lock is stale.
        rmSync(file, { force: true });
      }
    } finally {
      rmSync(temp, { force: true });
    }
    throw new UsageError(`${dir}: could not take the lock ${file}; another writer keeps taking it`);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    rmSync(this.file, { force: true });
  }
}

/** Who holds a lock; undefined for a file cut short or unreadable (a kill mid-write). */
function lockHolder(file: string): { pid: number; command: string } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown; command?: unknown };
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid)) return undefined;
    return {
      pid: parsed.pid,
      command: typeof parsed.command === 'string' ? parsed.command : 'command',
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a process with this pid exists (another user's counts: it may be writing). Our own
 * pid in a lock or temp file found on disk before we wrote anything is a dead process's,
 * reused: callers rule it out themselves.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
