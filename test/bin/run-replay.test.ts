import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ModelSetup } from '../../models/model-setup.js';
import type { Cassette } from '../../recordings/index.js';
import { runPassed } from '../../reports/graded.js';
import { readResults, type RunResult } from '../../reports/results.js';
import { expectInputError, faultlineInProcess, tempDir, type Ran } from '../support/cli.js';
import { cassetteFile, recordSession, writeRecordingFolder } from '../support/recorded-sessions.js';

let root = '';
/** The reference recorded on three library scenarios, one of them with a lost acknowledgement. */
let cassettes: Cassette[] = [];
let recordings = '';

beforeAll(async () => {
  root = tempDir('run-replay');
  cassettes = [
    await recordSession({ scenarioId: 'refunds/full-refund' }),
    // A lost acknowledgement: the refund's reply never came, and is recorded as unanswered.
    await recordSession({ scenarioId: 'refunds/partial-refund', plan: 'refund-ack-lost' }),
    await recordSession({ scenarioId: 'crm/update-contact' }),
  ];
  recordings = join(root, 'recordings');
  await writeRecordingFolder(recordings, cassettes);
});

/** An --out folder holding a file of its own, to show that a refused replay leaves it as it was. */
function outFolder(): { out: string; untouched: () => void } {
  const out = tempDir('run-replay-out');
  writeFileSync(join(out, 'keep.txt'), 'previous results\n');
  return {
    out,
    untouched: () => {
      expect(readdirSync(out)).toEqual(['keep.txt']);
      expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('previous results\n');
    },
  };
}

/** A copy of the recordings folder with the full-refund cassette changed by `edit`. */
async function broken(name: string, edit: (file: string) => void): Promise<string> {
  const dir = join(root, name);
  await writeRecordingFolder(dir, cassettes);
  edit(join(dir, cassetteFile('refunds/full-refund#7')));
  return dir;
}

const rewrite = (path: string, change: (json: Record<string, unknown>) => void): void => {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(path, JSON.stringify(json));
};

/** A refusal as the spawned command would print it: one line on stderr, exit 2. */
function refused(ran: Ran, pattern: RegExp): void {
  expectInputError(ran, pattern, 'run');
}

describe('faultline run --replay: refused before anything is written', () => {
  it('refuses a cassette of a wrong format in one line, the --out folder untouched', async () => {
    const dir = await broken('wrong-format', (file) => {
      rewrite(file, (j) => (j.format = 'faultline-model-cassette'));
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: format: must be "faultline-cassette" \(got "faultline-model-cassette"\)$/,
    );
    untouched();
  });

  it('refuses a truncated cassette in one line, the --out folder untouched', async () => {
    const dir = await broken('truncated', (file) => {
      writeFileSync(file, readFileSync(file, 'utf8').slice(0, 500));
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: \(root\): not valid JSON \(.*position 500.*truncated/,
    );
    untouched();
  });

  it('refuses a cassette for tools the agent does not know, naming them', async () => {
    const dir = await broken('unknown-tools', (file) => {
      rewrite(file, (j) => {
        j.tools = (j.tools as { name: string }[]).filter(
          (t) => t.name !== 'issue_refund' && t.name !== 'void_refund',
        );
      });
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: interactions\[\d+\]\.tool: the recording calls issue_refund, which its tools do not list/,
    );
    untouched();
  });

  it('refuses a session whose recorded scenario is not a valid scenario', async () => {
    const dir = await broken('bad-scenario', (file) => {
      rewrite(file, (j) => {
        (j.session as { scenario: { tier: string } }).scenario.tier = 'enormous';
      });
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: session\.scenario: tier: /,
    );
    untouched();
  });

  it('refuses a folder that is not there', async () => {
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', join(root, 'nowhere'), '--out', out]),
      /recordings folder .*nowhere: \(root\): no such folder$/,
    );
    untouched();
  });

  it.each([
    [['refunds/full-refund'], /--replay takes no scenario globs \(got refunds\/full-refund\)/],
    [['--mode', 'shadow'], /--replay cannot be combined with --mode: /],
    [['--faults', 'lost-ack'], /--replay cannot be combined with --faults: /],
    [['--plan', 'none'], /--replay cannot be combined with --plan: /],
    [['--seed', '3'], /--replay cannot be combined with --seed: /],
    [['--scenarios', 'x.json'], /--replay cannot be combined with --scenarios: /],
  ])('refuses --replay with %j in one line', async (extra, pattern) => {
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', recordings, ...extra, '--out', out]),
      pattern,
    );
    untouched();
  });
});

/** A replay into a fresh --out folder: what it printed, and the result set it made. */
async function replayed(
  dir: string,
  ...extra: string[]
): Promise<Ran & { out: string; results: RunResult[] }> {
  const out = tempDir('run-replay-set');
  const ran = await faultlineInProcess(['run', '--replay', dir, '--out', out, ...extra]);
  const results = ran.status === 2 ? [] : readResults(out).results;
  return { ...ran, out, results };
}

describe('faultline run --replay: the recorded sessions as cases', () => {
  it('replays each session with the agent that recorded it: no divergence, outcome judged, mode replay', async () => {
    const ran = await replayed(recordings);
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(ran.results.map((r) => [r.scenarioId, r.faultPlanId, r.mode, runPassed(r)])).toEqual([
      ['refunds/full-refund', 'recorded-7', 'replay', true],
      ['refunds/partial-refund', 'recorded-refund-ack-lost-7', 'replay', true],
      ['crm/update-contact', 'recorded-11', 'replay', true],
    ]);
    for (const r of ran.results) {
      expect(r.grades.outcome?.notApplicable).toBeUndefined();
      expect(r.grades.outcome?.figures.worldHolds).toBe(1);
      expect(r.world).toBe('recorded');
      // The recorded calls, every one of them, and nothing else.
      const recorded = cassettes.find((c) => c.session?.scenario.id === r.scenarioId);
      expect(r.figures.calls).toBe(recorded?.interactions.length);
    }
    expect(ran.stdout).toMatch(/refunds\/full-refund\s+│ recorded-7 /);
    // The lost acknowledgement got no reply in replay either: the agent waited, then went on.
    const lost = ran.results.find((r) => r.scenarioId === 'refunds/partial-refund');
    expect(lost?.figures.virtualMs).toBeGreaterThanOrEqual(30_000);
  });

  it('--trials K replays the same cassette K times, with the same result each time', async () => {
    const ran = await replayed(recordings, '--trials', '3');
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.results).toHaveLength(9);
    const same = (r: RunResult): unknown => [
      r.scenarioId,
      r.state,
      r.pass,
      r.figures.calls,
      r.grades,
    ];
    for (const r of ran.results) {
      const first = ran.results.find((o) => o.scenarioId === r.scenarioId && o.trial === 0);
      expect(same(r)).toEqual(same(first as RunResult));
      expect(r.seed).toBe(first?.seed);
    }
  });

  it('a mutant that leaves the recorded path fails at its first divergence, and show names the step', async () => {
    // The stale-write mutant skips the fresh read before the refund: off the path at step 2.
    const ran = await replayed(recordings, '--agent', 'stale-write');
    expect(ran.status).toBe(1);
    const refund = ran.results.find((r) => r.scenarioId === 'refunds/full-refund');
    expect(refund && runPassed(refund)).toBe(false);
    const findings = Object.values(refund?.grades ?? {}).flatMap((g) => g.findings);
    const divergence = findings.find((f) => f.code === 'replay-divergence');
    expect(divergence?.message).toMatch(
      /^replay divergence at step 2: expected get_order \{"order_id":"ord_1"\}, got issue_refund \{/,
    );
    const shown = await faultlineInProcess([
      'show',
      'refunds/full-refund/recorded-7/0',
      '--out',
      ran.out,
    ]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /diverged\s+replay divergence at step 2: expected get_order \{"order_id":"ord_1"\}, got issue_refund /,
    );

    // compare pairs the two replays session by session.
    const reference = await replayed(recordings);
    const compared = await faultlineInProcess(['compare', reference.out, ran.out]);
    expect(compared.stdout).toMatch(
      /Regressions — passed in A, failed in B \(3\):\n {2}✗ refunds\/full-refund \/ recorded-7 · seed 7 · trial 0\n {6}outcome: .*replay-divergence/,
    );
  });

  it('a session recorded without a verdict is replayed with its outcome not applicable', async () => {
    const dir = join(root, 'no-verdict');
    const [first] = cassettes;
    if (!first?.session) throw new Error('no session');
    await writeRecordingFolder(dir, [{ ...first, session: { ...first.session, verdict: null } }]);
    const ran = await replayed(dir);
    expect(ran.status, ran.stderr).toBe(0);
    const [only] = ran.results;
    expect(only?.grades.outcome?.notApplicable).toMatch(/no verdict/);
    expect(only?.pass).toBe(true);
    expect(ran.stdout).toMatch(/│ recorded-7 +│ n\/a +│ ✓ /);
    const shown = await faultlineInProcess(['show', 'recorded-7', '--out', ran.out]);
    expect(shown.stdout).toMatch(/– outcome · not applicable: the recording carries no verdict/);

    // Off the path of a recording whose end is not known to be right: noted, never a failure.
    const mutant = await replayed(dir, '--agent', 'stale-write');
    const [diverged] = mutant.results;
    expect(diverged?.grades.outcome?.notApplicable).toMatch(/no verdict/);
    expect(diverged?.grades.outcome?.findings.map((f) => f.code)).toEqual(['replay-divergence']);
    const noted = await faultlineInProcess(['show', 'recorded-7', '--out', mutant.out]);
    expect(noted.stdout).toMatch(/diverged\s+replay divergence at step 2: /);
  });
});

describe('faultline run --replay with a model agent', () => {
  it("replays a model agent's session, its model replies from the model cassettes (--replay-model)", async () => {
    const replies = 'recordings/cassettes/models/tool-loop';
    const model: ModelSetup = {
      spec: 'openai:scripted-oracle',
      provider: 'openai',
      api: 'openai',
      modelId: 'scripted-oracle',
      replayDir: replies,
    };
    const dir = join(root, 'model-agent');
    await writeRecordingFolder(dir, [
      await recordSession({ scenarioId: 'refunds/partial-refund', agent: 'tool-loop', model }),
    ]);
    const ran = await replayed(
      dir,
      '--agent',
      'tool-loop',
      '--model',
      'openai:scripted-oracle',
      '--replay-model',
      replies,
    );
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const [only] = ran.results;
    expect([only?.agent, only?.mode, only?.modelCassettes?.mode]).toEqual([
      'tool-loop',
      'replay',
      'replay',
    ]);
    expect(only?.figures.modelCalls).toBeGreaterThan(0);
  });
});

describe('promote --to historical-replay on replay runs', () => {
  it('passes for the agent that recorded the sessions and fails for a mutant (3 sessions × 20 trials)', async () => {
    const reference = await replayed(recordings, '--trials', '20', '--reporter', 'json');
    expect(reference.results).toHaveLength(60);
    const passed = await faultlineInProcess([
      'promote',
      reference.out,
      '--to',
      'historical-replay',
    ]);
    expect(passed.status, passed.stdout + passed.stderr).toBe(0);
    const mutant = await replayed(recordings, '--trials', '20', '--agent', 'stale-write');
    const failed = await faultlineInProcess(['promote', mutant.out, '--to', 'historical-replay']);
    expect(failed.status, failed.stdout).toBe(1);
    expect(failed.stdout).toMatch(/outcome pass\^3 +│ ≥ 90% +│ 0% over 3 of 3 group\(s\)/);
    expect(failed.stdout).toMatch(/runs in replay mode +│ ≥ 60 +│ 60 /);
  });
});
