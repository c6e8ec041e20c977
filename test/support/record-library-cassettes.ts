/**
 * Records the committed model cassettes: the whole built-in library run by `tool-loop` and by
 * `model-planner`, their model `openai:scripted-oracle` answered over HTTP by the library
 * oracle (msw emulating the OpenAI API, the real @ai-sdk/openai provider code in between).
 * CI and `test/e2e/library-replay.test.ts` replay them offline with `--replay-model`.
 *
 *   npm run record:model-cassettes
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../bin/cli.js';
import { libraryOracle } from './library-oracle.js';
import { OPENAI_BASE_URL, startProviderServer } from './provider-server.js';

export const CASSETTE_MODEL = 'openai:scripted-oracle';
export const CASSETTE_AGENTS = ['tool-loop', 'model-planner'] as const;
export const cassetteDir = (agent: string): string =>
  join('recordings', 'cassettes', 'models', agent);

process.env.OPENAI_API_KEY = 'sk-scripted-oracle-not-a-key';
process.env.OPENAI_BASE_URL = OPENAI_BASE_URL;
const server = startProviderServer(libraryOracle());
try {
  for (const agent of CASSETTE_AGENTS) {
    const dir = cassetteDir(agent);
    rmSync(dir, { recursive: true, force: true });
    const out = mkdtempSync(join(tmpdir(), 'faultline-record-'));
    const started = performance.now();
    const code = await main(
      // The hand-written library, not the τ-bench tasks the default suite also holds.
      [
        'run',
        '!tau-retail/*',
        // The scripted model answers in this process only: no worker threads.
        ...['--workers', '1'],
        ...['--agent', agent, '--model', CASSETTE_MODEL, '--record-model', dir, '--out', out],
      ],
      {
        out: (line) => {
          for (const l of line.split('\n'))
            if (/^(\d+ run\(s\)|model usage|.* virtual in )/.test(l)) console.log(`${agent}: ${l}`);
        },
        err: (line) => {
          console.error(line);
        },
        progress: () => undefined,
        progressDone: () => undefined,
        color: false,
        tty: false,
      },
    );
    console.log(
      `${agent}: exit ${code}, ${server.calls.length} model calls so far, ${((performance.now() - started) / 1000).toFixed(1)} s → ${dir}`,
    );
    rmSync(out, { recursive: true, force: true });
  }
} finally {
  server.close();
}
