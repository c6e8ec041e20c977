import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that cost the most (whole-library runs, spawned commands, child processes, the packed
 * tarball), costliest first: started first (after the isolated project's files, see
 * {@link HeavyFirstSequencer}), so that on two workers the suite does not end with one of them
 * still running a long file alone while the other sits idle.
 */
export const HEAVY_FILES: readonly string[] = [
  'test/bin/run.test.ts',
  'test/e2e/library-replay.test.ts',
  'test/runtime/roles-identity.test.ts',
  'test/package/pack.test.ts',
  'test/scenarios/child-crash.test.ts',
  'test/graders/matrix.test.ts',
  'test/bin/serve.test.ts',
  'test/scenarios/agent-crash.test.ts',
  'test/bin/record.test.ts',
  'test/bin/suite.test.ts',
  'test/e2e/historical-replay.test.ts',
  'test/scripts/typecheck-and-lint.test.ts',
  'test/bin/agents.test.ts',
  'test/bin/folder-lock.test.ts',
  'test/bin/explore-workers.test.ts',
  'test/explore/arbitraries.test.ts',
  'test/reports/html.browser.test.ts',
];

/**
 * Vitest's own order (with a results cache, slowest first), except that the isolated project's
 * files come first and then {@link HEAVY_FILES}, each group in HEAVY_FILES' order.
 *
 * Isolated first: vitest keeps a shared worker (its imported harness, `isolate: false`) for the
 * next file only while the next file waiting is a shared one. An isolated file at the head of the
 * queue when a shared worker finishes ends that worker, and the next shared file starts a fresh
 * one that imports the whole harness again: three isolated files among the shared ones cost
 * three such restarts. At the head, they run while the first shared workers have not yet started.
 *
 * Heavy next: a fresh clone has no results cache, and vitest would then order files by size,
 * which put the whole-suite run among the last files and left it alone at the end.
 */
export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = HEAVY_FILES.findIndex((file) => spec.moduleId.endsWith(file));
      const heavy = at === -1 ? HEAVY_FILES.length : at;
      return spec.project.config.isolate ? heavy - HEAVY_FILES.length - 1 : heavy;
    };
    const place = new Map(base.map((spec, i) => [spec, i]));
    return [...base].sort((a, b) => rank(a) - rank(b) || place.get(a)! - place.get(b)!);
  }
}
