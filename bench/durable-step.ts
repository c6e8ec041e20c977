/**
 * The reference runtime's cost per durable write step — propose → policy → persist intent →
 * write over MCP → persist result and checkpoint — beside the protocol's own floor measured in
 * the same process: two bare better-sqlite3 transactions writing the same bytes (the intent;
 * the result with its checkpoint) plus one bare in-memory MCP call to the same tool.
 *
 * Per-step cost is the slope between a long and a short run, so start-up (listing tools,
 * creating the run) is not counted. Figures are medians of several rounds; nothing asserts.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../runtime/clock.js';
import { META } from '../runtime/protocol.js';
import { ReferenceRuntime } from '../runtime/runtime.js';
import { RunStore } from '../runtime/store.js';
import { connectWorld } from '../scenarios/world/serve.js';
import { JournalWorld } from './bench-world.js';
import { fmt, median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const LONG = 120;
const SHORT = 20;
const PAYLOAD = 'x'.repeat(64);

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

interface RuntimeRun {
  ms: number;
  bytesPerStep: { intent: number; result: number };
}

async function runtimeRun(dir: string, steps: number, round: number): Promise<RuntimeRun> {
  const world = new JournalWorld({ seed: 1, clock: systemClock });
  const connection = await connectWorld(world);
  const path = join(dir, `runtime-${steps}-${round}.db`);
  const store = RunStore.open(path);
  const credential = world.credentials.issue(
    'bench',
    { tools: ['append_entry'], resources: {} },
    3_600_000,
  );
  const runtime = new ReferenceRuntime({
    store,
    client: connection.client,
    clock: systemClock,
    credential,
  });
  const started = performance.now();
  const outcome = await runtime.start({ runId: 'bench', contract, blueprint: blueprint(steps) });
  const ms = performance.now() - started;
  if (outcome.state !== 'completed' || world.ledger.entries().length !== steps) {
    throw new Error(`benchmark run did not complete: ${JSON.stringify(outcome)}`);
  }
  const bytesPerStep = measureBytes(path, steps);
  store.close();
  await connection.close();
  return { ms, bytesPerStep };
}

/** Bytes the runtime wrote per step, in the intent commit and in the result commit. */
function measureBytes(path: string, steps: number): { intent: number; result: number } {
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

async function floorRun(
  dir: string,
  steps: number,
  round: number,
  bytes: { intent: number; result: number },
): Promise<number> {
  const world = new JournalWorld({ seed: 1, clock: systemClock });
  const connection = await connectWorld(world);
  await connection.client.listTools();
  const credential = world.credentials.issue(
    'floor',
    { tools: ['append_entry'], resources: {} },
    3_600_000,
  );
  const db = new Database(join(dir, `floor-${steps}-${round}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
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
  const started = performance.now();
  for (let i = 1; i <= steps; i++) {
    intentTx(i, intentBytes);
    const reply = await connection.client.callTool({
      name: 'append_entry',
      arguments: { id: `e${i}`, payload: PAYLOAD },
      _meta: { [META.credential]: credential.token, [META.idempotencyKey]: `k${i}` },
    });
    if (reply.isError) throw new Error('floor call failed');
    resultTx(i, resultBytes, checkpointBytes);
  }
  const ms = performance.now() - started;
  db.close();
  await connection.close();
  return ms;
}

export async function benchDurableStep(): Promise<{
  runtimeUs: number;
  floorUs: number;
  ratio: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-'));
  try {
    // Warm up the JIT and the SDK's schema caches.
    const warm = await runtimeRun(dir, SHORT, -1);
    await floorRun(dir, SHORT, -1, warm.bytesPerStep);

    const runtimeSlopes: number[] = [];
    const floorSlopes: number[] = [];
    const ratios: number[] = [];
    let bytes = warm.bytesPerStep;
    for (let round = 0; round < ROUNDS; round++) {
      const long = await runtimeRun(dir, LONG, round);
      const short = await runtimeRun(dir, SHORT, round);
      bytes = long.bytesPerStep;
      runtimeSlopes.push(((long.ms - short.ms) / (LONG - SHORT)) * 1_000);
      const floorLong = await floorRun(dir, LONG, round, bytes);
      const floorShort = await floorRun(dir, SHORT, round, bytes);
      floorSlopes.push(((floorLong - floorShort) / (LONG - SHORT)) * 1_000);
      ratios.push(runtimeSlopes.at(-1)! / floorSlopes.at(-1)!);
    }
    const runtimeUs = median(runtimeSlopes);
    const floorUs = median(floorSlopes);
    // The ratio of each round's pair, so that a noisy round moves both sides together.
    const ratio = median(ratios);
    console.log(
      'durable write step (median of %d rounds, slope between %d- and %d-step runs)',
      ROUNDS,
      LONG,
      SHORT,
    );
    console.log(
      `  bytes written per step:     intent ${bytes.intent} B, result+checkpoint ${bytes.result} B`,
    );
    console.log(`  floor (2 bare txns + 1 MCP call): ${fmt(floorUs)}`);
    console.log(`  reference runtime:                ${fmt(runtimeUs)}`);
    console.log(
      `  ratio (median of per-round ratios): ${ratio.toFixed(2)}× (target ≤ 1.50×; rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
    );
    return { runtimeUs, floorUs, ratio };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
