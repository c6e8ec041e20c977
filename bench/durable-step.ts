/**
 * The reference runtime's cost per durable write step — propose → policy → persist intent →
 * write over MCP → persist result and checkpoint — beside two peers run in the same process:
 *
 * - the floor: what the protocol cannot do without. Two bare better-sqlite3 transactions writing
 *   the same bytes as the runtime's two commits (the intent; the result with its checkpoint)
 *   and one bare in-memory MCP call to the same tool, with the same credential and key;
 * - LangGraph.js with SqliteSaver: a one-node graph whose node makes the same MCP call and
 *   loops, checkpointed to a file after every superstep (`durability: 'sync'`).
 *
 * All three write to a file in the same folder with the same SQLite settings (WAL,
 * `synchronous=NORMAL`: a commit survives a killed process, not a power loss), and all three
 * are timed at the same point: the world's handler marks each append, and a run's per-step
 * cost is the time from its `SKIP`-th append to its last, over the steps between, so start-up
 * (listing tools, creating the run, compiling the graph) is not counted and nothing is
 * subtracted. CPU time of the process is taken at the same two marks.
 *
 * Rounds interleave the contenders: `PAIRS` floor-runtime pairs, one LangGraph run, and the
 * same pairs mirrored (with 2: floor, runtime, floor, runtime, LangGraph, runtime, floor,
 * runtime, floor; the next round swaps floor and runtime), so load that rises or falls through a
 * round weighs on each side alike. Every ratio is paired: a round's ratio divides the runtime's
 * mean per-step cost in that round by the floor's in the same round, so a slower or faster
 * stretch of the machine, which moves both, cancels; the figures printed are the median and
 * interquartile range of those per-round ratios. A full garbage collection runs before every
 * run, outside its timed steps, so that each run starts from the same heap and no contender
 * pays for collecting another's garbage (LangGraph's above all); the collections a run's own
 * allocations cause while it runs still fall inside its time. Nothing asserts.
 *
 * The verdict on a ratio's target: `meets` when the upper quartile of the rounds' ratios is at
 * or under it (three rounds in four at or under the target), `misses` when the lower quartile is
 * over it, `undecided` otherwise. Beside it the bench prints a distribution-free interval for the
 * median ratio (order statistics): at 21 rounds its ranks, 6th and 16th, are the quartiles'
 * own, so with the default rounds the verdict also says whether the median lies under the
 * target with 97% confidence; with more rounds that interval narrows, the IQR does not.
 *
 * `npx tsx bench/durable-step.ts`; env: BENCH_DURABLE_ROUNDS (default 21), BENCH_DURABLE_STEPS
 * (steps per run, default 220), BENCH_DURABLE_PAIRS (floor-runtime pairs on each side of
 * LangGraph's run, default 2: four runs of each per round), BENCH_DURABLE_GC=0 (no collection between runs), BENCH_DURABLE_DUMP=file (every
 * run's sample as JSON, to study the spread).
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock } from '../runtime/clock.js';
import { META } from '../runtime/protocol.js';
import { ReferenceRuntime } from '../runtime/runtime.js';
import { RunStore } from '../runtime/store.js';
import { connectWorld } from '../scenarios/world/serve.js';
import { JournalWorld } from './bench-world.js';
import { fmtSpread, medianInterval, spread, verdict, type Spread } from './stats.js';

const ROUNDS = Number(process.env.BENCH_DURABLE_ROUNDS ?? 21);
const STEPS = Number(process.env.BENCH_DURABLE_STEPS ?? 220);
const PAIRS = Number(process.env.BENCH_DURABLE_PAIRS ?? 2);
const DUMP = process.env.BENCH_DURABLE_DUMP;
/** Steps at the start of each run not counted: the first calls of a fresh world and store. */
const SKIP = 20;
const PAYLOAD = 'x'.repeat(64);
/** Targets of issue 18. */
export const TARGET_FLOOR_RATIO = 1.3;
export const TARGET_LANGGRAPH_RATIO = 0.2;

/** The SQLite settings every contender runs with; the runtime's store sets the same. */
function tuned(db: Database.Database): Database.Database {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Per-step cost of one run, between its `SKIP`-th and last step. */
interface Sample {
  wallUs: number;
  cpuUs: number;
}

/** Marks the world's appends: wall and CPU time at the `SKIP`-th and the last. */
class Stopwatch {
  private readonly marks: number[] = [];
  private cpuFrom?: NodeJS.CpuUsage;
  private cpuUs = 0;

  constructor(private readonly steps: number) {}

  readonly mark = (): void => {
    this.marks.push(performance.now());
    if (this.marks.length === SKIP) this.cpuFrom = process.cpuUsage();
    if (this.marks.length === this.steps && this.cpuFrom) {
      const cpu = process.cpuUsage(this.cpuFrom);
      this.cpuUs = (cpu.user + cpu.system) / (this.steps - SKIP);
    }
  };

  sample(): Sample {
    if (this.marks.length !== this.steps)
      throw new Error(`run made ${this.marks.length} of ${this.steps} steps`);
    return {
      wallUs: ((this.marks.at(-1)! - this.marks[SKIP - 1]!) * 1_000) / (this.steps - SKIP),
      cpuUs: this.cpuUs,
    };
  }
}

function blueprint(steps: number) {
  return {
    id: 'journal',
    version: '1',
    operations: Array.from({ length: steps }, (_, i) => ({
      id: `w-${i + 1}`,
      tool: 'append_entry',
      kind: 'write' as const,
      args: { id: `e${i + 1}`, payload: PAYLOAD },
      idempotent: true,
    })),
  };
}

const contract = {
  version: '1',
  objective: 'Append entries to the journal',
  decisionBoundary: 'execute' as const,
  authority: { tools: { append_entry: { risk: 'low' as const } } },
  autonomy: 'bounded' as const,
  budgets: { toolCalls: 10_000, retries: 10, externalWrites: 10_000, virtualTimeMs: 3_600_000 },
};

/**
 * The request `_meta` of step `i` as the runtime sends it — credential, run id, operation id,
 * and an idempotency key of the same length — so the world does the same work for every
 * contender.
 */
function requestMeta(token: string, i: number): Record<string, string> {
  return {
    [META.credential]: token,
    [META.runId]: 'bench',
    [META.operationId]: `w-${i}`,
    [META.idempotencyKey]: `idem_${i.toString(16).padStart(24, '0')}`,
  };
}

/**
 * A fresh journal world whose appends stamp `watch`, connected over in-memory MCP, and a
 * credential for its append tool: what every contender starts from.
 */
async function journal(holder: string, watch: Stopwatch) {
  const world = new JournalWorld({ seed: 1, clock: systemClock, onAppend: watch.mark });
  const connection = await connectWorld(world);
  const credential = world.credentials.issue(
    holder,
    { tools: ['append_entry'], resources: {} },
    3_600_000,
  );
  return { world, connection, credential };
}

interface Bytes {
  intent: number;
  result: number;
}

async function runtimeRun(path: string, steps: number): Promise<Sample & { bytes: Bytes }> {
  const watch = new Stopwatch(steps);
  const { world, connection, credential } = await journal('bench', watch);
  const store = RunStore.open(path);
  const runtime = new ReferenceRuntime({
    store,
    client: connection.client,
    clock: systemClock,
    credential,
  });
  const outcome = await runtime.start({ runId: 'bench', contract, blueprint: blueprint(steps) });
  if (outcome.state !== 'completed' || world.ledger.entries().length !== steps) {
    throw new Error(`benchmark run did not complete: ${JSON.stringify(outcome)}`);
  }
  store.close();
  await connection.close();
  return { ...watch.sample(), bytes: measureBytes(path, steps) };
}

/** Bytes the runtime wrote per step, in the intent commit and in the result commit. */
function measureBytes(path: string, steps: number): Bytes {
  const db = new Database(path, { readonly: true });
  const cols = (db.prepare('PRAGMA table_info(events)').all() as { name: string }[]).map(
    (c) => `COALESCE(LENGTH(${c.name}), 0)`,
  );
  const bytes = (type: string): number =>
    (db
      .prepare(`SELECT SUM(${cols.join(' + ')}) FROM events WHERE type = ?`)
      .pluck()
      .get(type) as number | null) ?? 0;
  const intent = bytes('action.intended');
  const result = bytes('action.confirmed');
  db.close();
  return { intent: Math.round(intent / steps), result: Math.round(result / steps) };
}

async function floorRun(path: string, steps: number, bytes: Bytes): Promise<Sample> {
  const watch = new Stopwatch(steps);
  const { connection, credential } = await journal('floor', watch);
  await connection.client.listTools();
  const db = tuned(new Database(path));
  db.exec(
    'CREATE TABLE intents (k INTEGER PRIMARY KEY, v BLOB NOT NULL); CREATE TABLE results (k INTEGER PRIMARY KEY, v BLOB NOT NULL, checkpoint BLOB NOT NULL)',
  );
  const insertIntent = db.prepare('INSERT INTO intents (k, v) VALUES (?, ?)');
  const insertResult = db.prepare('INSERT INTO results (k, v, checkpoint) VALUES (?, ?, ?)');
  const intentTx = db.transaction((k: number, v: string) => insertIntent.run(k, v));
  const resultTx = db.transaction((k: number, v: string, c: string) => insertResult.run(k, v, c));
  const intentBytes = 'i'.repeat(bytes.intent);
  const resultBytes = 'r'.repeat(Math.max(0, bytes.result - 32));
  const checkpointBytes = 'c'.repeat(Math.min(32, bytes.result));
  for (let i = 1; i <= steps; i++) {
    intentTx(i, intentBytes);
    const reply = await connection.client.callTool({
      name: 'append_entry',
      arguments: { id: `e${i}`, payload: PAYLOAD },
      _meta: requestMeta(credential.token, i),
    });
    if (reply.isError) throw new Error('floor call failed');
    resultTx(i, resultBytes, checkpointBytes);
  }
  db.close();
  await connection.close();
  return watch.sample();
}

const StepState = Annotation.Root({
  step: Annotation<number>(),
  last: Annotation<unknown>(),
});

/**
 * LangGraph.js's durable step: one node that makes the same MCP call and loops until the run
 * has made `steps` of them; SqliteSaver saves its writes and a checkpoint after each superstep,
 * before the next one starts (`durability: 'sync'`, as faultline's LangGraph adapter runs it).
 */
async function langGraphRun(path: string, steps: number): Promise<Sample> {
  const watch = new Stopwatch(steps);
  const { world, connection, credential } = await journal('langgraph', watch);
  await connection.client.listTools();
  const saver = new SqliteSaver(tuned(new Database(path)));
  const graph = new StateGraph(StepState)
    .addNode('write', async (state) => {
      const i = state.step + 1;
      const reply = await connection.client.callTool({
        name: 'append_entry',
        arguments: { id: `e${i}`, payload: PAYLOAD },
        _meta: requestMeta(credential.token, i),
      });
      if (reply.isError) throw new Error('langgraph call failed');
      return { step: i, last: reply.structuredContent ?? null };
    })
    .addEdge(START, 'write')
    .addConditionalEdges('write', (state) => (state.step < steps ? 'write' : END), ['write', END])
    .compile({ checkpointer: saver });
  const final = await graph.invoke(
    { step: 0, last: null },
    { configurable: { thread_id: 'bench' }, recursionLimit: steps + 10, durability: 'sync' },
  );
  if (final.step !== steps || world.ledger.entries().length !== steps) {
    throw new Error(`LangGraph run did not complete: step ${final.step}`);
  }
  saver.db.close();
  await connection.close();
  return watch.sample();
}

/** What {@link benchDurableStep} measured: per-step costs and their ratios, over rounds. */
export interface DurableStepFigures {
  rounds: number;
  steps: number;
  bytes: Bytes;
  /** Per-step wall time (µs) of each contender. */
  floorUs: Spread;
  runtimeUs: Spread;
  langGraphUs: Spread;
  /** Per-step CPU time (µs, this process, all threads) of each contender. */
  floorCpuUs: Spread;
  runtimeCpuUs: Spread;
  langGraphCpuUs: Spread;
  /** Runtime ÷ floor and runtime ÷ LangGraph, each within a round, by wall and CPU time. */
  floorRatio: Spread;
  langGraphRatio: Spread;
  floorCpuRatio: Spread;
  langGraphCpuRatio: Spread;
  /** Where the median runtime ÷ floor ratio lies (95% distribution-free interval), wall and CPU. */
  floorRatioInterval: Interval;
  floorCpuRatioInterval: Interval;
}

type Interval = ReturnType<typeof medianInterval>;

type Contender = 'floor' | 'runtime' | 'langgraph';

/**
 * One round's order, a palindrome: `pairs` floor-runtime pairs, LangGraph's longer run, and the
 * pairs mirrored, so floor and runtime have as many runs as each other and the same mean place
 * in the round; odd rounds swap floor and runtime.
 */
export function roundOrder(round: number, pairs: number): Contender[] {
  const pair: Contender[] = round % 2 === 0 ? ['floor', 'runtime'] : ['runtime', 'floor'];
  const half = Array.from({ length: pairs }, () => pair).flat();
  return [...half, 'langgraph', ...[...half].reverse()];
}

/**
 * A full collection, when the process allows it: `--expose-gc` is set here, at run time, so
 * that `npx tsx` needs no flag.
 */
const collect: (() => void) | undefined =
  process.env.BENCH_DURABLE_GC === '0'
    ? undefined
    : (() => {
        setFlagsFromString('--expose-gc');
        return runInNewContext('gc') as () => void;
      })();

export async function benchDurableStep(): Promise<DurableStepFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-'));
  let file = 0;
  const path = (name: string) => join(dir, `${name}-${file++}.db`);
  // One run's files at a time: a round leaves nothing behind for the next to page through.
  const discard = (db: string) => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  };
  try {
    // Warm up the JIT and the SDK's schema caches; the runtime's run also gives the bytes
    // the floor writes.
    const warm = await runtimeRun(path('runtime'), STEPS);
    const bytes = warm.bytes;
    await floorRun(path('floor'), STEPS, bytes);
    await langGraphRun(path('langgraph'), STEPS);

    // Each contender's sample of a round: the mean of its runs in that round.
    const samples: Record<Contender, Sample[]> = { floor: [], runtime: [], langgraph: [] };
    const dump: { round: number; who: Contender; sample: Sample }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs: Record<Contender, Sample[]> = { floor: [], runtime: [], langgraph: [] };
      for (const who of roundOrder(round, PAIRS)) {
        const db = path(who);
        collect?.();
        const sample =
          who === 'floor'
            ? await floorRun(db, STEPS, bytes)
            : who === 'runtime'
              ? await runtimeRun(db, STEPS)
              : await langGraphRun(db, STEPS);
        runs[who].push(sample);
        dump.push({ round, who, sample: { wallUs: sample.wallUs, cpuUs: sample.cpuUs } });
        discard(db);
      }
      for (const who of ['floor', 'runtime', 'langgraph'] as const) {
        const own = runs[who];
        samples[who].push({
          wallUs: own.reduce((sum, s) => sum + s.wallUs, 0) / own.length,
          cpuUs: own.reduce((sum, s) => sum + s.cpuUs, 0) / own.length,
        });
      }
    }
    if (DUMP) writeFileSync(DUMP, JSON.stringify(dump));
    const wall = (who: Contender) => spread(samples[who].map((s) => s.wallUs));
    const cpu = (who: Contender) => spread(samples[who].map((s) => s.cpuUs));
    const ratios = (a: Contender, b: Contender, by: keyof Sample) =>
      samples[a].map((s, i) => s[by] / samples[b][i]![by]);
    const ratio = (a: Contender, b: Contender, by: keyof Sample) => spread(ratios(a, b, by));
    const figures: DurableStepFigures = {
      rounds: ROUNDS,
      steps: STEPS,
      bytes,
      floorUs: wall('floor'),
      runtimeUs: wall('runtime'),
      langGraphUs: wall('langgraph'),
      floorCpuUs: cpu('floor'),
      runtimeCpuUs: cpu('runtime'),
      langGraphCpuUs: cpu('langgraph'),
      floorRatio: ratio('runtime', 'floor', 'wallUs'),
      langGraphRatio: ratio('runtime', 'langgraph', 'wallUs'),
      floorCpuRatio: ratio('runtime', 'floor', 'cpuUs'),
      floorRatioInterval: medianInterval(ratios('runtime', 'floor', 'wallUs')),
      floorCpuRatioInterval: medianInterval(ratios('runtime', 'floor', 'cpuUs')),
      langGraphCpuRatio: ratio('runtime', 'langgraph', 'cpuUs'),
    };
    printDurableStep(figures);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printDurableStep(f: DurableStepFigures): void {
  const us = (s: Spread) => fmtSpread(s, 0, ' µs');
  const x = (s: Spread) => fmtSpread(s, 2, '×');
  console.log(
    `durable write step: ${f.rounds} interleaved rounds of ${2 * PAIRS} floor and ${2 * PAIRS} runtime runs around 1 LangGraph run${collect ? ', a full GC before each run' : ''}; per-step cost over steps ${SKIP}–${f.steps} of each run; median (IQR) over rounds`,
  );
  console.log(
    `  bytes per step: intent ${f.bytes.intent} B, result+checkpoint ${f.bytes.result} B; every store WAL, synchronous=NORMAL`,
  );
  console.log('                                   wall                      CPU');
  console.log(`  floor (2 bare txns + 1 MCP call) ${us(f.floorUs).padEnd(25)} ${us(f.floorCpuUs)}`);
  console.log(
    `  reference runtime                ${us(f.runtimeUs).padEnd(25)} ${us(f.runtimeCpuUs)}`,
  );
  console.log(
    `  LangGraph.js + SqliteSaver       ${us(f.langGraphUs).padEnd(25)} ${us(f.langGraphCpuUs)}`,
  );
  console.log(
    `  runtime / floor                  ${x(f.floorRatio).padEnd(25)} ${x(f.floorCpuRatio)}   target ≤ ${TARGET_FLOOR_RATIO}×: ${verdict(f.floorRatio, TARGET_FLOOR_RATIO)}`,
  );
  console.log(
    `  runtime / LangGraph              ${x(f.langGraphRatio).padEnd(25)} ${x(f.langGraphCpuRatio)}   target ≤ ${TARGET_LANGGRAPH_RATIO}×: ${verdict(f.langGraphRatio, TARGET_LANGGRAPH_RATIO)}`,
  );
  const ci = (i: Interval) => `${i.low.toFixed(2)}×–${i.high.toFixed(2)}×`;
  console.log(
    `${`  median runtime / floor, ${(f.floorRatioInterval.confidence * 100).toFixed(0)}% CI`.padEnd(35)}${ci(f.floorRatioInterval).padEnd(26)}${ci(f.floorCpuRatioInterval)}   (order statistics)`,
  );
  console.log(
    '  each ratio is paired: runtime ÷ peer within one round. Verdict, by wall time: meets when the upper quartile of the rounds is at or under the target, misses when the lower quartile is over it, else undecided.',
  );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchDurableStep();
