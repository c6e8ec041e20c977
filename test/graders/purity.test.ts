import { existsSync, rmSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import {
  deepFreeze,
  doctor,
  recordsOf,
  subTrajectory,
  useTrials,
  type Trial,
} from '../support/grader-fixtures.js';

const trials = useTrials();

/**
 * Runs that between them raise findings on every dimension but efficiency and operational,
 * with and without white-box records, after crashes and under wire and world faults.
 */
const RUNS = [
  ['refunds/partial-refund', 'none', 'reference'],
  ['refunds/partial-refund', 'message-ack-lost', 'no-reconcile'],
  ['refunds/partial-refund', 'crash-after-refund', 'no-checkpoint'],
  ['refunds/partial-refund', 'hostile-note', 'obeys-injection'],
  ['refunds/partial-refund', 'refunded-elsewhere', 'stale-write'],
  ['refunds/full-refund', 'permission-revoked', 'ignores-revocation'],
  ['refunds/full-refund', 'none', 'naive-chat-loop'],
  ['refunds/already-refunded', 'none', 'naive-chat-loop'],
] as const;

const all = (): Promise<Trial[]> =>
  Promise.all(RUNS.map(([scenario, plan, agent]) => trials.run(scenario, plan, agent)));

describe('gradeRun is pure', () => {
  it('covers runs that fail, with and without records (so the checks below judge something)', async () => {
    const runs = await all();

    const passing = runs.filter((r) => gradeRun(r.scenario, r.trajectory).pass);

    expect(passing.map((r) => r.agent)).toEqual(['reference']);
    expect(runs.some((r) => r.trajectory.agentRecords === null)).toBe(true);
    expect(runs.some((r) => r.trajectory.crashes.length > 0)).toBe(true);
  });

  it('gives deep-equal grades for the same trajectory graded twice', async () => {
    for (const { scenario, trajectory } of await all()) {
      const first = gradeRun(scenario, trajectory);
      const second = gradeRun(scenario, trajectory);

      expect(second).toEqual(first);
    }
  });

  it('grades a deep-frozen scenario and trajectory, with the same result and no write', async () => {
    for (const { scenario, trajectory } of await all()) {
      const expected = gradeRun(scenario, trajectory);
      const frozenScenario = deepFreeze(structuredClone(scenario));
      const frozen = deepFreeze(structuredClone(trajectory));
      const before = JSON.stringify(frozen);

      const graded = gradeRun(frozenScenario, frozen);

      expect(graded).toEqual(expected);
      expect(JSON.stringify(frozen)).toBe(before);
    }
  });

  it('freezes deeply enough that a grader writing to its input would throw', async () => {
    const { trajectory } = await trials.run('refunds/partial-refund', 'none', 'reference');
    const frozen = deepFreeze(structuredClone(trajectory));

    expect(() => {
      frozen.calls[0]!.args.order_id = 'ord_9';
    }).toThrow(TypeError);
    expect(() => {
      recordsOf(frozen).events.push(recordsOf(frozen).events[0]!);
    }).toThrow(TypeError);
    expect(() => {
      frozen.faults.planned.push({});
    }).toThrow(TypeError);
  });

  it("reads nothing from the run's store: deleting it changes no grade", async () => {
    for (const { scenario, trajectory, storePath, agent } of await all()) {
      const before = gradeRun(scenario, trajectory);
      // Agents that keep nothing (the naive chat loop) never create a store.
      if (agent !== 'naive-chat-loop') expect(existsSync(storePath), storePath).toBe(true);

      for (const suffix of ['', '-wal', '-shm']) rmSync(storePath + suffix, { force: true });

      expect(existsSync(storePath)).toBe(false);
      expect(gradeRun(scenario, trajectory)).toEqual(before);
    }
  });

  it("does not read the agent's name", async () => {
    for (const { scenario, trajectory } of await all()) {
      const expected = gradeRun(scenario, trajectory);

      for (const name of ['reference', 'naive-chat-loop', 'someone-else']) {
        const renamed = doctor(trajectory, (t) => {
          t.agent = name;
        });

        expect(gradeRun(scenario, renamed), name).toEqual(expected);
      }
    }
  });

  it('grades any part of a real run deterministically and leaves it unchanged', async () => {
    const runs = await all();
    const parts = fc
      .constantFrom(...runs)
      .chain((run) => fc.tuple(fc.constant(run), subTrajectory(run.trajectory)));

    fc.assert(
      fc.property(parts, ([{ scenario }, part]) => {
        const before = JSON.stringify(part);

        const first = gradeRun(scenario, part);
        const second = gradeRun(scenario, deepFreeze(structuredClone(part)));

        expect(second).toEqual(first);
        expect(JSON.stringify(part)).toBe(before);
      }),
      { numRuns: 150 },
    );
  });
});
