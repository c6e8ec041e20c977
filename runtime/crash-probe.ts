/**
 * Probes at the steps of a write, reached by every write. `after-apply` is fired on the world
 * side (by the harness, once the world applied the write); the runtime fires the others.
 */
export const STEP_PROBES = [
  'before-intent',
  'after-intent',
  'before-send',
  'after-apply',
  'before-result-saved',
  'after-result-saved',
  'before-advance',
] as const;

/**
 * Probes while the run waits, reached only when it does: for a person's answer to an approval
 * (the request is on record, no answer has reached the run), out a backoff after a failure, or
 * out a provider's retry-after. Fired once the wait is on record, before any of it has passed.
 */
export const WAIT_PROBES = [
  'awaiting-approval',
  'awaiting-backoff',
  'awaiting-retry-after',
] as const;

/** Named points where a harness can crash the runtime. */
export const CRASH_PROBES = [...STEP_PROBES, ...WAIT_PROBES] as const;
export type CrashProbe = (typeof CRASH_PROBES)[number];

export interface ProbeInfo {
  runId: string;
  operationId: string;
  tool: string;
  attempt: number;
}

/**
 * Called at each probe. Returning a promise that never settles freezes the runtime exactly
 * there (in-process crash: the harness then closes its store and connection); a child-process
 * harness sends itself SIGKILL instead.
 */
export type ProbeHandler = (probe: CrashProbe, info: ProbeInfo) => void | Promise<void>;
