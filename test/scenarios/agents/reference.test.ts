import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema } from '../../../faults/catalog.js';
import { RunStore } from '../../../runtime/store.js';
import type {
  AgentRecords,
  AgentResult,
  AgentRun,
  AgentUnderTest,
} from '../../../scenarios/agent.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { runScenario } from '../../../scenarios/runner.js';
import { deterministicPart } from '../../../scenarios/trajectory.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-reference-agent-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ReferenceAgent stores', () => {
  const plan = faultPlanSchema.parse({
    id: 'two-crashes',
    faults: [
      { kind: 'crash', trigger: { on: 'probe', probe: 'after-intent', operation: 'refund' } },
      { kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
      {
        kind: 'crash',
        trigger: { on: 'probe', probe: 'after-result-saved', operation: 'refund' },
      },
    ],
  });
  const run = (store: 'file' | 'memory', outDir: string) =>
    runScenario(partialRefund, {
      outDir,
      agent: () => new ReferenceAgent('reference', {}, { store }),
      faultPlan: plan,
    });

  it('makes the same run with its store in memory as on disk, crashes and all, writing no file', async () => {
    const onDisk = await run('file', join(dir, 'file'));
    const inMemory = await run('memory', join(dir, 'memory'));

    expect(onDisk.trajectory.crashes).toHaveLength(2);
    expect(onDisk.asExpected).toBe(true);
    expect(deterministicPart(inMemory.trajectory)).toEqual(deterministicPart(onDisk.trajectory));
    expect(existsSync(onDisk.storePath)).toBe(true);
    expect(existsSync(inMemory.storePath)).toBe(false);
  });

  it('by default writes no file while the run is in this process, and its store file once it ends', async () => {
    const inner = new ReferenceAgent();
    // What is on disk at the store path each time an incarnation hands back its outcome.
    const onDiskWhenIncarnationEnded: boolean[] = [];
    const noted =
      (go: (r: AgentRun) => Promise<AgentResult>) =>
      async (r: AgentRun): Promise<AgentResult> => {
        const outcome = await go(r);
        onDiskWhenIncarnationEnded.push(existsSync(r.storePath));
        return outcome;
      };
    const agent: AgentUnderTest = {
      name: inner.name,
      exposes: inner.exposes,
      start: noted((r) => inner.start(r)),
      resume: noted((r) => inner.resume(r)),
      records: (path, runId) => inner.records(path, runId),
      discard: () => {
        inner.discard();
      },
    };
    const throughFile = await run('file', join(dir, 'through-file'));

    const byDefault = await runScenario(partialRefund, {
      outDir: join(dir, 'default'),
      agent: () => agent,
      faultPlan: plan,
    });

    expect(byDefault.trajectory.crashes).toHaveLength(2);
    expect(onDiskWhenIncarnationEnded).toEqual([false]);
    expect(deterministicPart(byDefault.trajectory)).toEqual(
      deterministicPart(throughFile.trajectory),
    );
    // One file, nothing beside it (no journal, no temporary), holding the run as it ended.
    expect(readdirSync(join(dir, 'default', 'stores'))).toEqual([basename(byDefault.storePath)]);
    // A WAL store file as written: opening and reading it changes no byte of it (no journal
    // mode to convert, which would be a write on a file just written).
    const written = readFileSync(byDefault.storePath);
    expect([...written.subarray(18, 20)]).toEqual([2, 2]);
    const store = RunStore.open(byDefault.storePath);
    try {
      expect(store.listRuns().map((r) => [r.id, r.state])).toEqual([
        [byDefault.trajectory.runId, 'completed'],
      ]);
      expect(store.events(byDefault.trajectory.runId)).toEqual(
        (byDefault.trajectory.agentRecords as AgentRecords).events,
      );
    } finally {
      store.close();
    }
    expect(readFileSync(byDefault.storePath).equals(written)).toBe(true);
  });

  it('for a user who never reads records: discard writes the store file of each run that ended, and none mid-run', async () => {
    const inner = new ReferenceAgent();
    // Whether a store file was at the path each time the engine discarded the instance (a crash).
    const onDiskAfterCrashDiscard: boolean[] = [];
    let storePath = '';
    // The engine reads no records from an agent without `records`: as a library user who
    // drives the agent and never asks for them.
    const agent: AgentUnderTest = {
      name: inner.name,
      exposes: inner.exposes,
      start: (r) => {
        storePath = r.storePath;
        return inner.start(r);
      },
      resume: (r) => inner.resume(r),
      discard: () => {
        inner.discard();
        onDiskAfterCrashDiscard.push(existsSync(storePath));
      },
    };
    const throughFile = await run('file', join(dir, 'unread-file'));
    const first = await runScenario(partialRefund, {
      outDir: join(dir, 'unread'),
      agent: () => agent,
      faultPlan: plan,
    });
    const second = await runScenario(partialRefund, {
      outDir: join(dir, 'unread'),
      agent: () => agent,
      runId: 'second',
    });

    // The crashes kept each image in memory and wrote nothing; the resumed run is the same.
    expect(onDiskAfterCrashDiscard).toEqual([false, false]);
    expect(deterministicPart({ ...first.trajectory, agentRecords: null })).toEqual(
      deterministicPart({ ...throughFile.trajectory, agentRecords: null }),
    );
    expect(existsSync(first.storePath)).toBe(false);
    expect(existsSync(second.storePath)).toBe(false);

    inner.discard();

    // Both runs ended here: each has its file, whole, holding its run as it ended.
    for (const [ran, runId] of [
      [first, first.trajectory.runId],
      [second, 'second'],
    ] as const) {
      const store = RunStore.open(ran.storePath);
      try {
        expect(store.listRuns().map((r) => [r.id, r.state])).toEqual([[runId, 'completed']]);
      } finally {
        store.close();
      }
    }
    // Nothing is held any more: a second discard writes nothing.
    rmSync(second.storePath);
    inner.discard();
    expect(existsSync(second.storePath)).toBe(false);
  });
});
