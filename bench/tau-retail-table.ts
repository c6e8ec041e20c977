/**
 * The τ-bench table under faults, measured: every agent of the zoo over the τ-bench retail test
 * tasks and their derived plans, then `faultline passk` over all of them — pass^1 and pass^k
 * per agent and fault kind. The model agents (`tool-loop`, `model-planner`) get the scripted
 * oracle model over HTTP (msw emulating the OpenAI API, the real provider code in between),
 * the same model the library's committed cassettes were recorded with.
 *
 *   npx tsx bench/tau-retail-table.ts                       # every agent, one trial
 *   BENCH_TAU_TRIALS=4 BENCH_TAU_AGENTS=reference,tool-loop npx tsx bench/tau-retail-table.ts
 *   BENCH_TAU_GLOB='tau-retail/test-00*' npx tsx bench/tau-retail-table.ts  # ten tasks
 *
 * Each agent's result set is kept in a temporary folder (printed), so the table can be printed
 * again with `npx faultline passk DIR…`. Figures printed, nothing asserted.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../bin/cli.js';
import { quietIo } from './quiet-io.js';
import { ZOO } from '../scenarios/agents/zoo.js';
import { tauRetailScenarios } from '../scenarios/library/tau-retail/index.js';
import { libraryOracle } from '../test/support/library-oracle.js';
import { OPENAI_BASE_URL, startProviderServer } from '../test/support/provider-server.js';

const MODEL = 'openai:scripted-oracle';
const MODEL_AGENTS = new Set(['tool-loop', 'model-planner']);
const glob = process.env.BENCH_TAU_GLOB ?? 'tau-retail/*';
const trials = process.env.BENCH_TAU_TRIALS ?? '1';
const workers = process.env.BENCH_TAU_WORKERS ?? String(Math.min(2, cpus().length));
const agents = (
  process.env.BENCH_TAU_AGENTS?.split(',') ??
  ZOO.map((a) => a.name).filter((n) => n !== 'model-planner-objective')
).filter((n) => n !== '');

const quiet = quietIo((line) => {
  console.error(line);
});

process.env.OPENAI_API_KEY = 'sk-scripted-oracle-not-a-key';
process.env.OPENAI_BASE_URL = OPENAI_BASE_URL;
const server = startProviderServer(libraryOracle(tauRetailScenarios('test')));
const root = mkdtempSync(join(tmpdir(), 'faultline-tau-table-'));
console.log(
  `τ-bench retail table · ${agents.length} agent(s), ${trials} trial(s), ${workers} worker(s) · node ${process.version} · load ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores · ${root}`,
);
const dirs: string[] = [];
try {
  for (const agent of agents) {
    const out = join(root, agent);
    const model = MODEL_AGENTS.has(agent) ? ['--model', MODEL] : [];
    // A model agent's calls go to this process's msw server: it runs here, not in workers.
    const threads = MODEL_AGENTS.has(agent) ? '1' : workers;
    const started = performance.now();
    const code = await main(
      [
        'run',
        glob,
        '--agent',
        agent,
        ...model,
        '--trials',
        trials,
        '--workers',
        threads,
        '--out',
        out,
      ],
      quiet,
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`${agent.padEnd(22)} exit ${code} · ${seconds.toFixed(1)} s`);
    if (code === 2) throw new Error(`${agent}: the run was refused (see above)`);
    dirs.push(out);
  }
} finally {
  server.close();
}
await main(['passk', ...dirs], {
  ...quiet,
  out: (text) => {
    console.log(text);
  },
});
