import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/heavy-first-sequencer.js';

/**
 * Files that change what the whole process sees — a provider key or base URL in process.env, an
 * msw server over fetch, a module mock, the working folder, the command run in process — or that
 * spawn the command or a browser. Each runs in a fresh worker of its own, so nothing it leaves
 * behind reaches another file.
 */
const ISOLATED = [
  'test/bin/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/package/**/*.test.ts',
  'test/adapters/**/*.test.ts',
  'test/models/**/*.test.ts',
  'test/examples/**/*.test.ts',
  'test/reports/*.browser.test.ts',
  'test/faults/model-faults.test.ts',
  'test/recordings/model-cassette.test.ts',
  'test/scenarios/agents/model-planner.test.ts',
  'test/scenarios/library/tau-retail.test.ts',
  'test/support/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker (cores - 1): most files wait on
    // SQLite, child processes and sockets as much as on the CPU, so two keep both cores busy.
    maxWorkers: 2,
    // The costliest files first: see HeavyFirstSequencer.
    sequence: { sequencer: HeavyFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // Not shared modules: with one module graph per worker (`isolate: false`, 58 s →
          // 25 s of CPU on test/graders) state some modules keep (registries, caches) leaked
          // from file to file and failed explore, matrix, compare and reference tests that pass
          // alone. Isolated until that state is found and made per run.
          isolate: true,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, isolate: true },
      },
    ],
  },
});
