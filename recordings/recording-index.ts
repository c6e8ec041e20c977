import { z } from 'zod';

/**
 * A folder of recordings is a suite: `index.json` lists its sessions, one cassette each, so a
 * reader can tell a complete folder from one a crash left half-written and can list the cases
 * without opening every cassette. `faultline record` rewrites it atomically after each session;
 * `faultline run --replay DIR` reads it and then checks every cassette it names.
 */

/** The `format` an index names, so a stray JSON file is refused rather than read. */
export const RECORDING_INDEX_FORMAT = 'faultline-recordings';
export const RECORDING_INDEX_VERSION = 1;
/** The index's file name inside a recordings folder. */
export const RECORDING_INDEX_FILE = 'index.json';

/** One recorded session, as the index lists it. */
export const indexedSessionSchema = z.strictObject({
  /** The cassette, relative to the folder (`refunds__partial-refund.none.0.json`). */
  file: z.string().min(1),
  /** The session's run id (unique within the folder). */
  runId: z.string().min(1),
  scenarioId: z.string().min(1),
  faultPlanId: z.string().min(1),
  agent: z.string().min(1),
  mode: z.string().min(1),
  recordedAt: z.iso.datetime({ offset: true }),
  /** Tool interactions recorded, and how many of them went unanswered. */
  toolCalls: z.number().int().nonnegative(),
  unanswered: z.number().int().nonnegative(),
  verdict: z.enum(['pass', 'fail']).nullable(),
});
export type IndexedSession = z.infer<typeof indexedSessionSchema>;

export const recordingIndexSchema = z.strictObject({
  format: z.literal(RECORDING_INDEX_FORMAT),
  version: z.literal(RECORDING_INDEX_VERSION),
  sessions: z.array(indexedSessionSchema),
});
export type RecordingIndex = z.infer<typeof recordingIndexSchema>;
