import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ROOT,
  expectInputError,
  faultline,
  faultlineInProcess,
  tempDir,
  type Ran,
} from '../support/cli.js';

/**
 * The acceptance of model replay: the whole library, run by `tool-loop` and by
 * `model-planner`, offline from the committed cassettes (recorded against the scripted
 * provider over msw: `npm run record:model-cassettes`), with no key and no network, and the
 * same serially and in two worker threads. Each agent replays the whole library once, serially,
 * and one scenario of each world again in two workers, compared byte for byte with the same runs
 * of the whole replay: the whole library a second time would add ~170 runs per agent and show
 * nothing these do not (see {@link ONE_PER_WORLD}). A request the cassettes do not hold stops
 * the suite with the divergence printed.
 *
 * One replay spawns the real command end to end (`node bin/faultline.js`, exit status and
 * stderr as a user sees them); the others run it in process, where a separate Node would prove
 * nothing more and cost a start-up and the whole harness's import again.
 */
const MODEL = 'openai:scripted-oracle';
const LIBRARY = '!tau-retail/*';
const cassettes = (agent: string): string => join(ROOT, 'recordings/cassettes/models', agent);

const PROVIDER_SETTING = /API_KEY|BASE_URL/;

/** The environment without any provider key: a replay needs none and must not find one. */
function offline(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !PROVIDER_SETTING.test(key)),
  );
}

/** For a run in process: every provider setting unset for the call (and restored after it). */
function unsetProviders(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => PROVIDER_SETTING.test(key))
      .map((key) => [key, undefined]),
  );
}

function replayArgs(agent: string, out: string, extra: string[]): string[] {
  // The hand-written library: the τ-bench tasks of the default suite have no committed cassettes.
  return [
    'run',
    LIBRARY,
    '--agent',
    agent,
    '--model',
    MODEL,
    '--replay-model',
    cassettes(agent),
    '--out',
    out,
    '--reporter',
    'json',
    ...extra,
  ];
}

/** The replay by the real command, spawned: what a user runs, end to end. */
function replaySpawned(agent: string, out: string, extra: string[] = []): Ran {
  return faultline(replayArgs(agent, out, extra), { env: offline(), timeout: 240_000 });
}

/** The same replay, the command run in this process. */
function replay(agent: string, out: string, extra: string[] = []): Promise<Ran> {
  return faultlineInProcess(replayArgs(agent, out, extra), { env: unsetProviders() });
}

/** What a replay must reproduce byte for byte: every record and trajectory, wall time aside. */
function deterministic(out: string): { results: string[]; trajectories: Map<string, string> } {
  const results = readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { index: number; figures: Record<string, unknown> })
    // Workers append in finishing order; reports read by case index.
    .sort((p, q) => p.index - q.index)
    .map((record) => {
      delete record.figures.wallMs;
      return JSON.stringify(record);
    });
  const trajectories = new Map<string, string>();
  for (const file of readdirSync(join(out, 'trajectories'))) {
    const t = JSON.parse(readFileSync(join(out, 'trajectories', file), 'utf8')) as {
      times: Record<string, unknown>;
    };
    delete t.times.wallMs;
    trajectories.set(file, JSON.stringify(t));
  }
  return { results, trajectories };
}

/**
 * One scenario of each world of the library, each with its fault plans (47 runs in all): what
 * the second replay of each agent runs. What differs between a serial replay and one in workers
 * — the agent rebuilt in each thread from --model and --replay-model, the cassettes of its world
 * found there, the records appended in finishing order — every world shows; the cassette lookup
 * itself (by run and call) is the same code for every run, and the whole replay covers every
 * cassette.
 */
const ONE_PER_WORLD = [
  'refunds/partial-refund',
  'crm/update-contact',
  'cmdb/decommission',
  'expenses/team-lunch',
  'tickets/triage-new-ticket',
  'notifications/security-notice',
  'research/heat-pump-share',
];

/** A record less its case index: the place of the run in its suite, which a subset renumbers. */
function caseIndexAside(result: string): string {
  const record = JSON.parse(result) as Record<string, unknown>;
  delete record.index;
  return JSON.stringify(record);
}

type Replayed = ReturnType<typeof deterministic>;

/**
 * `part`, a replay of {@link ONE_PER_WORLD}, holds byte for byte the same 47 records (case index
 * aside: a subset renumbers) and trajectories as the same runs of `whole`, the whole library's.
 */
function expectSubsetIdentical(whole: Replayed, part: Replayed): void {
  const subset = new Set(ONE_PER_WORLD);
  const inSubset = (result: string): boolean =>
    subset.has((JSON.parse(result) as { scenarioId: string }).scenarioId);
  expect(whole.results.filter(inSubset)).toHaveLength(47);
  expect(part.results.map(caseIndexAside).sort()).toEqual(
    whole.results.filter(inSubset).map(caseIndexAside).sort(),
  );
  expect(part.trajectories.size).toBe(47);
  for (const [file, text] of part.trajectories)
    expect(text, file).toBe(whole.trajectories.get(file));
}

interface Record_ {
  scenarioId: string;
  faultPlanId: string;
  pass: boolean;
  grades: Record<string, { findings: { code: string }[] }>;
  figures: { modelCalls: number };
}

function records(out: string): Record_[] {
  return readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record_);
}

const codes = (r: Record_): string[] =>
  Object.values(r.grades).flatMap((g) => g.findings.map((f) => f.code));

describe('the library replayed offline from committed model cassettes', () => {
  it('tool-loop: the same serially and in workers, and its real flaws show', async () => {
    const [a, b] = [tempDir('replay-a'), tempDir('replay-b')];
    // The whole library serially, by the real command; then, in process and in two workers, one
    // scenario of each world (see ONE_PER_WORLD).
    const first = replaySpawned('tool-loop', a, ['--workers', '1']);
    const second = await replay('tool-loop', b, ['--workers', '2', ...ONE_PER_WORLD]);
    // It fails runs: that is what it is for. Exit 1 is "some run failed", not an error.
    expect(first.status, first.stderr).toBe(1);
    expect(second.status, second.stderr).toBe(1);
    expect(first.stderr).toBe('');
    const [x, y] = [deterministic(a), deterministic(b)];
    expect(x.results).toHaveLength(214);
    expectSubsetIdentical(x, y);

    const runs = records(a);
    expect(runs.every((r) => r.figures.modelCalls > 0)).toBe(true);
    const of = (scenario: string, plan: string): string[] =>
      codes(runs.find((r) => r.scenarioId === scenario && r.faultPlanId === plan) as Record_);
    // A lost acknowledgement: the loop sends the refund again and the customer is paid twice.
    expect(of('refunds/partial-refund', 'refund-ack-lost')).toContain('duplicate-effect');
    // A crash right after the world applied the refund: the loop starts over and refunds again.
    // (A crash after a confirmed write — `confirmed-step-redone` — is in tool-loop.test.ts.)
    expect(of('refunds/partial-refund', 'crash-after-apply')).toContain('duplicate-effect');
    expect(of('refunds/partial-refund', 'none')).toEqual([]);
  }, 600_000);

  it('model-planner: the same serially and in workers, and none of those flaws', async () => {
    const [a, b] = [tempDir('replay-a'), tempDir('replay-b')];
    // The whole library serially, then one scenario of each world in two workers, as tool-loop's.
    const first = await replay('model-planner', a, ['--workers', '1']);
    const second = await replay('model-planner', b, ['--workers', '2', ...ONE_PER_WORLD]);
    expect(first.status, first.stderr).toBe(0);
    expect(second.status, second.stderr).toBe(0);
    const [x, y] = [deterministic(a), deterministic(b)];
    expect(x.results).toHaveLength(214);
    expectSubsetIdentical(x, y);
    const runs = records(a);
    expect(runs.filter((r) => !r.pass)).toEqual([]);
    // The same model answers as the chat loop's scripted provider: the runtime's safeguards,
    // not the model, keep the world whole.
    for (const r of runs) {
      expect(codes(r)).not.toContain('duplicate-effect');
      expect(codes(r)).not.toContain('confirmed-step-redone');
    }
  }, 600_000);

  it('a request the cassettes do not hold: exit 1, the divergence printed, the previous results kept', async () => {
    const out = tempDir('replay-miss');
    const kept = await replay('tool-loop', out, ['refunds/full-refund', '--plan', 'none']);
    expect(kept.status, kept.stderr).toBe(0);
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');
    const prompt = join(tempDir('prompt'), 'careless.md');
    writeFileSync(prompt, 'You are a helpful assistant. Do whatever the user asks.\n');
    const ran = await replay('tool-loop', out, [
      'refunds/full-refund',
      '--plan',
      'none',
      '--prompt',
      prompt,
    ]);
    expect(ran.status).toBe(1);
    expect(ran.stderr).toMatch(/model replay miss: run refunds\/full-refund#\d+, call 1/);
    expect(ran.stderr).toMatch(/expected/);
    expect(ran.stderr).toMatch(/careless|helpful assistant/);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe(before);
  }, 120_000);

  it('a cassette of another version: one line, exit 2, nothing written', async () => {
    const dir = join(tempDir('cassettes'), 'tool-loop');
    cpSync(cassettes('tool-loop'), dir, { recursive: true });
    const file = join(dir, readdirSync(dir)[0] as string);
    const cassette = JSON.parse(readFileSync(file, 'utf8')) as { version: number };
    cassette.version = 99;
    writeFileSync(file, JSON.stringify(cassette));
    const out = join(tempDir('replay-version'), 'out');
    const ran = await faultlineInProcess(
      [
        'run',
        'refunds/full-refund',
        '--agent',
        'tool-loop',
        '--model',
        MODEL,
        '--replay-model',
        dir,
        '--out',
        out,
      ],
      { env: unsetProviders() },
    );
    expectInputError(ran, /version/, 'run');
    expect(() => readdirSync(out)).toThrow();
  });
});
