import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { withJournalMode } from './store.js';

/*
 * Whether a run store file is whole, read without writing anything. `RunStore.open` is no such
 * check: it seeds an empty file as a new store, switches the journal to WAL and migrates, so it
 * would turn a file a power loss emptied into a valid empty store. The file is read into memory
 * and opened there instead: nothing is written beside it (no `-wal`, no `-shm`), and a harness
 * store (a few hundred KB at most) costs a few milliseconds.
 */

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** The SQLite file header's length: a file shorter than this holds no database. */
const HEADER_BYTES = 100;

/**
 * What is wrong with a run store file, in a few words (`store empty`, `store cut short`,
 * `store unreadable (database disk image is malformed)`); undefined when it is a whole SQLite
 * database holding a store's schema. Checks, in order: the file is there and not empty; it
 * starts with SQLite's header; it is as long as the header says (a file cut short); SQLite's
 * `quick_check` passes on every page (a page a power loss left as zeros); the schema is there.
 * A `-wal` beside the file holds commits the file alone lacks: then the file is opened where it
 * lies, read-only.
 *
 * @example
 * ```ts
 * const problem = storeFileProblem('.faultline/stores/refunds_full-refund_7.db');
 * if (problem !== undefined) console.log(`made again: ${problem}`);
 * ```
 */
export function storeFileProblem(path: string): string | undefined {
  if (!existsSync(path)) return 'store missing';
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return `store unreadable (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (bytes.length === 0) return 'store empty';
  if (bytes.length < HEADER_BYTES)
    return bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC.subarray(0, bytes.length))
      ? 'store cut short'
      : 'store not a SQLite file';
  if (!bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC))
    return 'store not a SQLite file';
  const expected = headerLength(bytes);
  if (expected !== undefined && bytes.length < expected) return 'store cut short';
  const wal = existsSync(`${path}-wal`);
  let db: Database.Database | undefined;
  try {
    if (wal) db = new Database(path, { readonly: true, fileMustExist: true });
    else {
      // An image in memory cannot be read in WAL mode (no shared memory).
      db = new Database(withJournalMode(bytes, 'rollback'), { readonly: true });
    }
    const check = db.pragma('quick_check', { simple: true }) as string;
    // One line: SQLite's report spans several (`*** in database main ***`, then the page).
    if (check !== 'ok') return `store unreadable (${check.replace(/\s+/g, ' ').trim()})`;
    if ((db.pragma('user_version', { simple: true }) as number) === 0)
      return 'store holds no schema';
    db.prepare('SELECT count(*) FROM runs').get();
    return undefined;
  } catch (error) {
    return `store unreadable (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    db?.close();
  }
}

/**
 * The file's length as its header says (page size × pages); undefined when the header's page
 * count is not to be trusted (a file last written by a SQLite older than 3.7.0).
 */
function headerLength(bytes: Buffer): number | undefined {
  const size = bytes.readUInt16BE(16);
  const pageSize = size === 1 ? 65_536 : size;
  const pages = bytes.readUInt32BE(28);
  // The page count is valid only when the change counter matches "version-valid-for".
  if (pages === 0 || bytes.readUInt32BE(24) !== bytes.readUInt32BE(92)) return undefined;
  return pageSize * pages;
}
