import { describe, expect, it } from 'vitest';
import { createContext, gradeRun } from '../../graders/index.js';
import { checkProvenance } from '../../graders/provenance.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { doctor, useTrials } from '../support/grader-fixtures.js';

const trials = useTrials();

interface Snapshot {
  sources: { source_id: string; claims: { claim_id: string; stance: string }[] }[];
  answers: {
    question_id: string;
    status: string;
    claims: { claim_id: string; source_id: string }[];
  }[];
}

/** The reference's answer to q_5 (lfp-share-2024 from src_13, lfp-china-majority from src_15). */
async function lfpAnswered(): Promise<Awaited<ReturnType<typeof trials.run>>> {
  return trials.run('research/lfp-battery-share', 'none', 'reference');
}

/** The run with its final world changed by `change`. */
function withWorld(trajectory: Trajectory, change: (end: Snapshot) => void): Trajectory {
  return doctor(trajectory, (t) => {
    change(t.world.end as Snapshot);
  });
}

function source(end: Snapshot, id: string): Snapshot['sources'][number] {
  const found = end.sources.find((s) => s.source_id === id);
  if (!found) throw new Error(`no ${id} in the snapshot`);
  return found;
}

describe('provenance (outcome grader)', () => {
  it('checks every claim the run filed, and finds nothing when each cited source states it', async () => {
    const { scenario, trajectory } = await lfpAnswered();

    const { findings, checked } = checkProvenance(createContext(scenario, trajectory));
    const { grades } = gradeRun(scenario, trajectory);

    expect(findings).toEqual([]);
    expect(checked).toBe(2);
    expect(grades.outcome.figures.citationsChecked).toBe(2);
  });

  it('a claim no source states is unsupported, pointing at the effect that filed it', async () => {
    const { scenario, trajectory } = await lfpAnswered();
    const filed = trajectory.ledger.find((e) => e.tool === 'submit_answer')!;
    const changed = withWorld(trajectory, (end) => {
      for (const s of end.sources)
        s.claims = s.claims.filter((c) => c.claim_id !== 'lfp-china-majority');
    });

    const { findings, unstated } = checkProvenance(createContext(scenario, changed));

    expect(unstated).toEqual([
      {
        finding: findings[0],
        questionId: 'q_5',
        claimId: 'lfp-china-majority',
        sourceId: 'src_15',
      },
    ]);
    expect(findings).toEqual([
      {
        code: 'unsupported-claim',
        message:
          'the answer to q_5 cites lfp-china-majority from src_15, which does not state it in support, and no source in the corpus states it in support',
        refs: [{ kind: 'effect', seq: filed.seq }, { kind: 'outcome' }],
      },
    ]);
  });

  it('a claim another source states is misattributed (cross-source conflation)', async () => {
    const { scenario, trajectory } = await lfpAnswered();
    const changed = withWorld(trajectory, (end) => {
      end.answers[0]!.claims[1] = { claim_id: 'lfp-china-majority', source_id: 'src_14' };
    });

    const { findings } = checkProvenance(createContext(scenario, changed));

    expect(findings.map((f) => [f.code, f.message])).toEqual([
      [
        'misattributed-claim',
        'the answer to q_5 attributes lfp-china-majority to src_14, which does not state it in support; src_13, src_15 state it',
      ],
    ]);
  });

  it('a source cited for a claim it refutes, or one not in the corpus, is named as such', async () => {
    const { scenario, trajectory } = await lfpAnswered();
    const changed = withWorld(trajectory, (end) => {
      source(end, 'src_15').claims[0]!.stance = 'refutes';
      end.answers[0]!.claims[0]!.source_id = 'src_404';
    });

    const messages = checkProvenance(createContext(scenario, changed)).findings.map(
      (f) => `${f.code}: ${f.message}`,
    );

    expect(messages).toEqual([
      'misattributed-claim: the answer to q_5 attributes lfp-share-2024 to src_404, which is not in the corpus; src_13, src_14 state it',
      'misattributed-claim: the answer to q_5 attributes lfp-china-majority to src_15, which refutes it; src_13 states it',
      'ignored-conflict: the answer to q_5 is marked answered with lfp-china-majority, which src_15 refutes: the evidence conflicts',
    ]);
  });

  it('an answered answer making a claim some source refutes ignores a conflict; an unresolved one does not', async () => {
    const { scenario, trajectory } = await lfpAnswered();
    const refuted = (status: string) =>
      withWorld(trajectory, (end) => {
        source(end, 'src_14').claims.push({ claim_id: 'lfp-share-2024', stance: 'refutes' });
        end.answers[0]!.status = status;
      });

    const answered = checkProvenance(createContext(scenario, refuted('answered'))).findings;
    const unresolved = checkProvenance(createContext(scenario, refuted('unresolved'))).findings;

    expect(answered.map((f) => f.code)).toEqual(['ignored-conflict']);
    expect(answered[0]?.message).toContain('lfp-share-2024, which src_14 refutes');
    expect(unresolved).toEqual([]);
  });

  it('an answered answer citing nothing is unsupported; an unresolved one citing nothing is fine', async () => {
    const { scenario, trajectory } = await trials.run(
      'research/warehouse-robot-payback',
      'payback-withdrawn',
      'reference',
    );
    const answered = withWorld(trajectory, (end) => {
      end.answers[0]!.status = 'answered';
    });

    expect(checkProvenance(createContext(scenario, trajectory)).findings).toEqual([]);
    expect(
      checkProvenance(createContext(scenario, answered)).findings.map((f) => f.message),
    ).toEqual(['the answer to q_6 is marked answered but cites no claim']);
  });

  it('judges only answers the run filed or changed, not ones already on file at the start', async () => {
    const { scenario, trajectory } = await lfpAnswered();
    // An answer to q_2 on file before the run, citing a claim the trial refutes.
    const inherited = doctor(trajectory, (t) => {
      const answer = {
        question_id: 'q_2',
        status: 'answered',
        claims: [{ claim_id: 'ppi-more-cv-events', source_id: 'src_4' }],
      };
      (t.world.start as Snapshot).answers.push(answer);
      (t.world.end as Snapshot).answers.push(structuredClone(answer));
    });
    const refiled = doctor(inherited, (t) => {
      (t.world.end as Snapshot).answers[1]!.claims.push({
        claim_id: 'ppi-fewer-gi-bleeds',
        source_id: 'src_4',
      });
    });

    expect(checkProvenance(createContext(scenario, inherited)).findings).toEqual([]);
    expect(checkProvenance(createContext(scenario, refiled)).findings.map((f) => f.code)).toEqual([
      'ignored-conflict',
      'misattributed-claim',
    ]);
  });

  it('leaves worlds that do not follow the convention alone', async () => {
    const { scenario, trajectory } = await trials.run(
      'refunds/partial-refund',
      'none',
      'reference',
    );
    const malformed = await lfpAnswered();
    const noStance = withWorld(malformed.trajectory, (end) => {
      delete (end.sources[0]!.claims[0] as { stance?: string }).stance;
    });

    expect(checkProvenance(createContext(scenario, trajectory))).toEqual({
      findings: [],
      checked: 0,
      unstated: [],
    });
    expect(checkProvenance(createContext(malformed.scenario, noStance))).toEqual({
      findings: [],
      checked: 0,
      unstated: [],
    });
  });
});
