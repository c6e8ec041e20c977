/**
 * The file name of a run's store in a result set's `stores/` folder: its key (the run id, or
 * a trial's own key when trials share a run id) made safe on every file system.
 *
 * @example
 * ```ts
 * storeFileName('refunds/full-refund#none#7'); // 'refunds_full-refund_none_7.db'
 * ```
 */
export function storeFileName(key: string): string {
  return `${key.replace(/[^a-zA-Z0-9-]+/g, '_')}.db`;
}
