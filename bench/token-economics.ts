/**
 * Token economics, measured: the CMDB nightly sync (the reference makes 67 tool calls) run by
 * `tool-loop` (the whole transcript sent every turn), by `model-planner` (a bounded working
 * context per step — another slice's agent: a marked slot until it is in the tree) and by the
 * blueprint-driven reference (no model call per step). The model is `openai:gpt-test`, the
 * oracle (test/support/oracle.ts) served over HTTP by msw as the OpenAI API, so every token
 * counted was in a request the real OpenAI provider code sent.
 *
 * Tokens are counted with js-tiktoken's o200k_base (GPT-4o's tokenizer) on each request body
 * as sent (messages, tool calls and results, tool definitions; OpenAI's 3 tokens per message)
 * and on each reply. It then checks the claim "blueprint-driven execution spends more than 99%
 * fewer tokens than a chat loop on a 67-step workflow" and prints whether it holds, and by how
 * much — both for the reference as it runs (no model at all) and for a blueprint a model wrote
 * once (estimated: the chat loop's own request once the inventories are read, answered with
 * the blueprint as JSON). Figures are printed, never asserted.
 *
 * `npx tsx bench/token-economics.ts` (building the tokenizer takes a few seconds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCase, type SuiteCase } from '../bin/suite.js';
import { NO_FAULTS } from '../faults/catalog.js';
import { chatRequestTokens, type ChatRequestLike } from '../models/token-count.js';
import { nightlySync } from '../scenarios/library/cmdb/nightly-sync.js';
import { zooAgent } from '../scenarios/agents/zoo.js';
import { defineScenario, type Scenario } from '../scenarios/scenario.js';
import { o200k, ORACLE_KEY_ENV, ORACLE_MODEL } from '../test/support/oracle.js';
import { startProviderServer, type Respond } from '../test/support/provider-server.js';
import { OracleServer, runWithOracle, type OracleRun } from '../test/support/oracle-runs.js';

/** One agent's run, in tokens. */
export interface TokenFigures {
  agent: string;
  note: string;
  worldCalls: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  pass: boolean;
}

export interface TokenEconomics {
  runs: TokenFigures[];
  /** A blueprint a model wrote once (estimated), in tokens. */
  planOnce: { inputTokens: number; outputTokens: number };
  /**
   * 1 − blueprint-driven / chat loop, for the reference as it runs and with the plan written by
   * a model: against the chat loop as the library runs it (`asRun`), and against its cheapest
   * run, the approval answered at once (`atOnce`).
   */
  saving: {
    asRun: { reference: number; planOnce: number };
    atOnce: { reference: number; planOnce: number };
  };
}

const total = (f: { inputTokens: number; outputTokens: number }): number =>
  f.inputTokens + f.outputTokens;

/** Input tokens of the requests as sent over HTTP; output tokens as the oracle counted its replies. */
function figuresOf(agent: string, note: string, run: OracleRun): TokenFigures {
  const encoder = o200k();
  return {
    agent,
    note,
    worldCalls: run.trajectory.calls.length,
    modelCalls: run.requests.length,
    inputTokens: run.requests.reduce(
      (sum, r) => sum + chatRequestTokens(r.body as unknown as ChatRequestLike, encoder),
      0,
    ),
    outputTokens: (run.trajectory.modelCalls ?? []).reduce((s, c) => s + c.usage.outputTokens, 0),
    pass: run.result.pass,
  };
}

/** Where the model-planner slice keeps its scripted provider (not in every tree yet). */
const PLANNER_ORACLE = '../test/support/planner-oracle.js';

/**
 * SLOT — model-planner (another slice's agent): measured when the zoo has `model-planner` and
 * the tree has its planner oracle (`plannerOracle(blueprint): Respond`, test/support), on a
 * provider server of its own; otherwise not measured. Input tokens on the request bodies as
 * sent, output tokens on the replies, both with o200k_base.
 */
async function measureModelPlanner(
  scenario: Scenario,
  outDir: string,
): Promise<TokenFigures | undefined> {
  if (!zooAgent('model-planner')) return undefined;
  let plannerOracle: ((blueprint: Scenario['blueprint']) => Respond) | undefined;
  try {
    ({ plannerOracle } = (await import(PLANNER_ORACLE)) as {
      plannerOracle: (blueprint: Scenario['blueprint']) => Respond;
    });
  } catch {
    return undefined;
  }
  const encoder = o200k();
  const provider = startProviderServer(plannerOracle(scenario.blueprint));
  process.env[ORACLE_KEY_ENV] = 'sk-oracle-bench';
  try {
    const { result, trajectory } = await runCase(
      caseOf(scenario, 'model-planner'),
      'model-planner',
      outDir,
      ORACLE_MODEL,
    );
    return {
      agent: 'model-planner',
      note: 'bounded working context per step',
      worldCalls: trajectory.calls.length,
      modelCalls: provider.calls.length,
      inputTokens: provider.calls.reduce(
        (sum, c) => sum + chatRequestTokens(c.request.body as unknown as ChatRequestLike, encoder),
        0,
      ),
      outputTokens: provider.calls.reduce(
        (sum, c) =>
          sum + ('text' in c.answer && c.answer.text ? encoder.encode(c.answer.text).length : 0),
        0,
      ),
      pass: result.pass,
    };
  } finally {
    provider.close();
    Reflect.deleteProperty(process.env, ORACLE_KEY_ENV);
  }
}

/** The fault-free case of a scenario for an agent, as the suite makes it. */
function caseOf(scenario: Scenario, agent: string): SuiteCase {
  return {
    index: 0,
    id: `${agent}|${scenario.contract.autonomy}|${scenario.id}|none|0`,
    scenario,
    faultPlan: NO_FAULTS,
    trial: 0,
    seed: scenario.world.seed,
    mode: scenario.contract.autonomy,
    replay: '',
  };
}

/**
 * What it would cost a model to write the blueprint once: the chat loop's own request once it
 * has read the inventories (every read before the first write), answered with the blueprint's
 * operations as JSON.
 */
function planOnce(
  scenario: Scenario,
  chat: OracleRun,
): { inputTokens: number; outputTokens: number } {
  const encoder = o200k();
  const ops = scenario.blueprint.operations;
  const firstWrite = ops.findIndex((op) => op.kind === 'write');
  const reads = firstWrite < 0 ? ops.length : firstWrite;
  const request = chat.requests[reads] ?? chat.requests.at(-1);
  return {
    inputTokens: request
      ? chatRequestTokens(request.body as unknown as ChatRequestLike, encoder)
      : 0,
    outputTokens: encoder.encode(JSON.stringify(scenario.blueprint)).length,
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;
const num = (x: number): string => x.toLocaleString('en');

export async function benchTokenEconomics(): Promise<TokenEconomics> {
  const scenario = nightlySync;
  // The same job with the change approval answered at once: no polling turns in the chat loop.
  const approvedAtOnce = defineScenario({
    ...nightlySync,
    id: 'cmdb/nightly-sync-approved-at-once',
    operator: {
      ...nightlySync.operator,
      approvals: { ...nightlySync.operator.approvals, afterMs: 0 },
    },
  });
  const encoder = o200k();
  const server = new OracleServer({ encoder });
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-bench-tokens-'));
  server.start();
  try {
    const chat = await runWithOracle(server, { agent: 'tool-loop', scenario, outDir });
    const quick = await runWithOracle(server, {
      agent: 'tool-loop',
      scenario: approvedAtOnce,
      outDir,
    });
    // One msw server at a time: the tool-loop oracle's is stopped before the planner's starts.
    server.stop();
    const planner = await measureModelPlanner(scenario, outDir);
    const reference = await runCase(caseOf(scenario, 'reference'), 'reference', outDir);
    const runs: TokenFigures[] = [
      figuresOf('tool-loop', 'whole transcript every turn', chat),
      figuresOf('tool-loop', 'the same, approval answered at once (no polling turns)', quick),
      ...(planner ? [planner] : []),
      {
        agent: 'reference',
        note: 'blueprint-driven: no model call per step',
        worldCalls: reference.trajectory.calls.length,
        modelCalls: reference.trajectory.modelCalls?.length ?? 0,
        inputTokens: reference.result.figures.inputTokens,
        outputTokens: reference.result.figures.outputTokens,
        pass: reference.result.pass,
      },
    ];
    const once = planOnce(scenario, chat);
    const ref = runs.at(-1)!;
    const against = (loop: TokenFigures) => ({
      reference: 1 - total(ref) / total(loop),
      planOnce: 1 - (total(ref) + total(once)) / total(loop),
    });
    const saving = { asRun: against(runs[0]!), atOnce: against(runs[1]!) };
    print(scenario, runs, planner !== undefined, once, saving);
    return { runs, planOnce: once, saving };
  } finally {
    server.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}

function print(
  scenario: Scenario,
  runs: readonly TokenFigures[],
  plannerMeasured: boolean,
  once: { inputTokens: number; outputTokens: number },
  saving: TokenEconomics['saving'],
): void {
  console.log(
    `token economics · ${scenario.id} (seed ${scenario.world.seed}) · o200k_base on the requests as sent over HTTP`,
  );
  const row = (cells: readonly string[]): string =>
    `  ${cells[0]!.padEnd(15)}${cells
      .slice(1, 7)
      .map((c) => c.padStart(12))
      .join('')}  ${cells[7] ?? ''}`;
  console.log(
    row(['agent', 'tool calls', 'model calls', 'input tok', 'output tok', 'total tok', 'passed']),
  );
  for (const r of runs)
    console.log(
      row([
        r.agent,
        num(r.worldCalls),
        num(r.modelCalls),
        num(r.inputTokens),
        num(r.outputTokens),
        num(total(r)),
        r.pass ? 'yes' : 'no',
        r.note,
      ]),
    );
  if (!plannerMeasured)
    console.log(
      '  model-planner  — not measured: SLOT, no model-planner in the zoo or no planner oracle in this tree (see measureModelPlanner)',
    );
  console.log(
    row([
      'plan once',
      '—',
      '1',
      num(once.inputTokens),
      num(once.outputTokens),
      num(total(once)),
      '',
      'estimate: a model writes the blueprint once, after reading the inventories',
    ]),
  );
  const loop = runs[0]!;
  const ratios = [...runs.slice(1), { agent: 'plan once', note: '', ...once }].map(
    (r) =>
      `${r.agent}${r === runs[1] ? ' (approval at once)' : ''} ${(total(r) / total(loop)).toFixed(4)}×`,
  );
  console.log(`\n  ratio to tool-loop: ${ratios.join(' · ')}`);
  console.log(
    `  tool-loop averages ${num(Math.round(total(loop) / Math.max(1, loop.modelCalls)))} tokens per model call: each request resends the whole run so far. It makes ${num(loop.worldCalls)} tool calls to the reference's ${num(ref(runs).worldCalls)} (no fresh reads, no checks), so a loop doing all 67 would spend more.`,
  );
  console.log(
    '\n  claim: "blueprint-driven execution spends more than 99% fewer tokens than a chat loop on a 67-step workflow"',
  );
  const verdict = (x: number): string => (x > 0.99 ? 'HOLDS' : 'DOES NOT HOLD');
  console.log(
    `  - the reference as it runs: ${pct(saving.asRun.reference)} fewer — ${verdict(saving.asRun.reference)}, by construction: it makes no model call at all`,
  );
  for (const [label, s] of [
    ['as the library runs it', saving.asRun],
    ['approval answered at once', saving.atOnce],
  ] as const)
    console.log(
      `  - with the blueprint written by a model (estimate), against the chat loop ${label}: ${pct(s.planOnce)} fewer — ${verdict(s.planOnce)}`,
    );
  console.log(
    `    (this plan comes from each night's diff, so a model would write it every run; a plan reused across runs costs its ${num(total(once))} tokens once)`,
  );
}

function ref(runs: readonly TokenFigures[]): TokenFigures {
  return runs.at(-1)!;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchTokenEconomics();
