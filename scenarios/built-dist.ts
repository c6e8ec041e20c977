import { join } from 'node:path';

/**
 * The variable naming a built `dist/` of these same sources (as `tsc -p tsconfig.build.json`
 * lays it out), for faultline run from the sources: the child-process crash mode starts that
 * build's `scenarios/child/agent-process.js`, and `--workers` threads its `bin/worker-main.js`,
 * on plain Node instead of the sources through tsx (about a quarter to a half of the CPU per
 * start). Only where nothing of the user's is loaded beside it — a zoo or reference agent, no
 * agent module, no scenario file — since such a file imports the sources, and a build beside
 * them would load the harness twice. The test suite builds the sources once per run and points
 * this at the build; parent and child must be the same sources, as they speak one protocol. The
 * built package ignores it: its children and threads are its own.
 *
 * @example
 * ```ts
 * process.env[BUILT_DIST_ENV] = '/tmp/build/dist';
 * ```
 */
export const BUILT_DIST_ENV = 'FAULTLINE_BUILT_DIST' as const;

/**
 * `relative` inside the build {@link BUILT_DIST_ENV} names, when faultline runs from the sources
 * (`fromSources`) and the variable is set; otherwise undefined.
 */
export function builtDistEntry(fromSources: boolean, relative: string): string | undefined {
  const dist = process.env[BUILT_DIST_ENV];
  return fromSources && dist !== undefined && dist !== '' ? join(dist, relative) : undefined;
}
