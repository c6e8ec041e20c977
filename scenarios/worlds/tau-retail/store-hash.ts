import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../runtime/canonical-json.js';
import type { RetailData } from './data.js';

/** The tables of the store, in the order the hash lists them. */
export const TABLES = ['orders', 'products', 'users'] as const;
export type Table = (typeof TABLES)[number];

/** Records the store changed, by table and id; the rest are the shared base records. */
export type Overlay = { readonly [T in Table]: Readonly<Record<string, unknown>> };

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Each table's base lines (`table id hash`), sorted by id, and where each id's line is. */
interface BaseLines {
  readonly lines: readonly string[];
  /** The lines joined: the table's text when nothing in it changed. */
  readonly joined: string;
  readonly index: ReadonlyMap<string, number>;
}
const baseLines = new WeakMap<object, BaseLines>();

const line = (table: Table, id: string, record: unknown): string =>
  `${table}\t${id}\t${sha(canonicalJson(record))}\n`;

/** The frozen base table's lines, computed once per process. */
function linesOf(table: Table, records: Readonly<Record<string, unknown>>): BaseLines {
  let known = baseLines.get(records);
  if (!known) {
    const ids = Object.keys(records).sort();
    const lines = ids.map((id) => line(table, id, records[id]));
    known = { lines, joined: lines.join(''), index: new Map(ids.map((id, i) => [id, i])) };
    baseLines.set(records, known);
  }
  return known;
}

/**
 * The sha256 of the store's canonical form: one line per record (`table id sha256(canonical
 * JSON of the record)`), tables and ids sorted. Two stores hash alike exactly when every record
 * is equal, as the benchmark's own hash of its canonical database; built record by record so a
 * store that changed three orders costs three record hashes, not a megabyte of JSON.
 *
 * @example
 * ```ts
 * storeHash(loadRetailData(), { orders: {}, products: {}, users: {} }); // the fresh store's hash
 * ```
 */
export function storeHash(base: RetailData, overlay: Overlay): string {
  let text = '';
  for (const table of TABLES) {
    const records = base[table] as Readonly<Record<string, unknown>>;
    const { lines, joined, index } = linesOf(table, records);
    const changed = Object.keys(overlay[table]);
    if (changed.length === 0) {
      text += joined;
      continue;
    }
    const copy = [...lines];
    const extra: string[] = [];
    for (const id of changed) {
      const at = index.get(id);
      const own = line(table, id, overlay[table][id]);
      if (at === undefined) extra.push(own);
      else copy[at] = own;
    }
    // A record the store never had sorts among the rest by its id (ids never hold a tab).
    text += (extra.length === 0 ? copy : [...copy, ...extra].sort()).join('');
  }
  return sha(text);
}
