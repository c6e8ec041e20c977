import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/heavy-first-sequencer.js';

/**
 * The files that run each in a fresh worker of its own: the browser tests and the packed
 * package's install (they drive other programs for the whole file). Every other file shares its
 * worker's module graph with the files before it (`isolate: false`): the harness is imported once
 * per worker, not once per file — about two seconds of CPU each, which over 180-odd files was a
 * third of the suite's cost. So a file here leaves the process as it found it: an environment
 * variable, an msw server, the working folder are put back in its own `afterAll`/`finally`, and
 * what it imports is never changed in place (a library scenario's operation edited by one file
 * is edited for every file after it: copy it, then change the copy).
 */
const ISOLATED = ['test/package/**/*.test.ts', 'test/reports/*.browser.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One temporary folder for the run (TMPDIR for the workers and what they spawn), removed
    // when it ends: the tests' own folders no longer pile up in /tmp. Then the sources built
    // once into it, laid out as the installed package: the commands and child agents the tests
    // spawn run that on plain Node, not the sources through tsx (see built-package.ts).
    globalSetup: ['test/support/temp-root.ts', 'test/support/built-package.ts'],
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
          // One module graph per worker: see ISOLATED for what a file here must not do.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, isolate: true },
      },
    ],
  },
});
