/**
 * Named points where a harness can crash the runtime. `after-apply` is fired on the world side
 * (by the harness, once the world applied the write); the runtime fires the others.
 */
export const CRASH_PROBES = [
  'before-intent',
  'after-intent',
  'before-send',
  'after-apply',
  'before-result-saved',
  'after-result-saved',
  'before-advance',
] as const;
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
