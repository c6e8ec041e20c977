import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that cost the most (whole-library runs, spawned commands, child processes, the packed
 * tarball), costliest first: started first, so that on two workers the suite does not end with
 * one of them still running a long file alone while the other sits idle.
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
 * Vitest's own order (with a results cache, slowest first), except
 * that {@link HEAVY_FILES} lead, in their order. Vitest orders a fresh clone — no results cache —
 * by file size, which put the whole-suite run among the last files and left it alone at the end.
 */
export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = HEAVY_FILES.findIndex((file) => spec.moduleId.endsWith(file));
      return at === -1 ? HEAVY_FILES.length : at;
    };
    const place = new Map(base.map((spec, i) => [spec, i]));
    // Both projects share one group of workers, so the heavy files lead whichever project holds them.
    return [...base].sort((a, b) => rank(a) - rank(b) || place.get(a)! - place.get(b)!);
  }
}
