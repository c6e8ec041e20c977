import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { regressionSchema } from '../../scenarios/regression.js';
import { expectInputError, faultlineInProcess, tempDir } from '../support/cli.js';

const dir = tempDir('explore');
const regressions = join(dir, 'regressions');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('faultline explore', () => {
  let replay = '';
  let planId = '';

  it('finds a counterexample, shrinks it, says how to replay it, saves it and exits 1', async () => {
    const ran = await faultlineInProcess(
      [
        'explore',
        'refunds/partial-refund',
        '--agent',
        'no-reconcile',
        '--runs',
        '200',
        '--seed',
        '1',
        '--regressions',
        regressions,
        '--out',
        join(dir, 'out'),
      ],
      { timeout: 120_000 },
    );

    expect(ran.status, ran.stderr).toBe(1);
    expect(ran.stdout).toMatch(
      /^exploring refunds\/partial-refund with no-reconcile: up to 200 fault plans of at most 3 fault\(s\), seed 1$/m,
    );
    expect(ran.stdout).toMatch(/\[\d+\/200\] explored · [\d.]+ runs\/s/);
    expect(ran.stdout).toMatch(
      /^counterexample after \d+ run\(s\), shrunk in \d+ step\(s\) to 1 fault\(s\)/m,
    );
    expect(ran.stdout).toContain(
      '  1. lost-ack: the 5th tool call of the run is applied, but its reply is lost',
    );
    expect(ran.stdout).toContain('send_customer_message applied; its reply is lost');
    expect(ran.stdout).toMatch(
      /^ {2}no-duplicate-effects: duplicate-effect: message:cus_4:refund_issued:ord_4 applied 2 times/m,
    );
    expect(ran.stdout).toMatch(/^reproduce: seed 1, path \d+(:\d+)* \(world seed 7\)$/m);
    replay = /^replay: +npx faultline (.*)$/m.exec(ran.stdout)?.[1] ?? '';
    expect(replay).toMatch(
      /^explore refunds\/partial-refund --agent no-reconcile --seed 1 --path \S+ --max-faults 3$/,
    );

    const files = readdirSync(regressions);
    expect(files).toHaveLength(1);
    const saved = regressionSchema.parse(
      JSON.parse(readFileSync(join(regressions, files[0]!), 'utf8')),
    );
    planId = saved.faultPlan.id;
    expect(files[0]).toBe(`refunds--partial-refund--${planId}.json`);
    expect(saved).toMatchObject({
      scenario: 'refunds/partial-refund',
      seed: 7,
      faultPlan: { faults: [{ kind: 'lost-ack', trigger: { on: 'step', step: 5 } }] },
    });
    expect(ran.stdout).toContain(
      `run it:    npx faultline run refunds/partial-refund --plan ${planId} --agent no-reconcile`,
    );
  });

  it('replays the counterexample from the printed command', async () => {
    const ran = await faultlineInProcess(
      [...replay.split(' '), '--regressions', regressions, '--out', join(dir, 'out')],
      {
        timeout: 120_000,
      },
    );

    expect(ran.status, ran.stderr).toBe(1);
    expect(ran.stdout).toMatch(
      /^replaying refunds\/partial-refund with no-reconcile: seed 1, path /m,
    );
    expect(ran.stdout).toMatch(/^counterexample after 1 run\(s\)/m);
    expect(ran.stdout).toContain(
      `saved:     ${join(regressions, `refunds--partial-refund--${planId}.json`)}`,
    );
  });

  it('leaves a regression faultline run includes: the mutant fails it, the reference passes', async () => {
    const args = ['run', 'refunds/partial-refund', '--plan', planId, '--regressions', regressions];

    const mutant = await faultlineInProcess([
      ...args,
      '--agent',
      'no-reconcile',
      '--out',
      join(dir, 'run-mutant'),
    ]);
    const reference = await faultlineInProcess([...args, '--out', join(dir, 'run-reference')]);

    expect(mutant.status, mutant.stderr).toBe(1);
    expect(mutant.stdout).toContain('1 run(s) of 1 scenario(s): 0 passed, 1 failed');
    expect(reference.status, reference.stderr).toBe(0);
    expect(reference.stdout).toContain('1 run(s) of 1 scenario(s): 1 passed, 0 failed');
  });

  it('exits 0 when no plan breaks an invariant', async () => {
    const ran = await faultlineInProcess(
      [
        'explore',
        'refunds/approval-denied',
        '--runs',
        '15',
        '--seed',
        '4',
        '--regressions',
        regressions,
        '--out',
        join(dir, 'out'),
      ],
      { timeout: 120_000 },
    );

    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(
      /^no counterexample in 15 run\(s\) \([\d.]+ s, [\d.]+ runs\/s\); seed 4$/m,
    );
  });

  it.each([
    [['explore'], /expects one scenario id \(got none\)/],
    [['explore', 'refunds/nope'], /no scenario "refunds\/nope" \(known: refunds\/full-refund, /],
    [['explore', 'refunds/full-refund', '--agent', 'nobody'], /--agent: unknown agent "nobody"/],
    [
      ['explore', 'refunds/full-refund', '--runs', '0'],
      /--runs must be a whole number ≥ 1 \(got "0"\)/,
    ],
    [
      ['explore', 'refunds/full-refund', '--seed', '1.5'],
      /--seed must be a 32-bit integer \(got "1.5"\)/,
    ],
    [
      ['explore', 'refunds/full-refund', '--path', '3:1'],
      /--path replays a search: give the --seed/,
    ],
  ] as const)('refuses %j with one line and exit 2, writing nothing', async (args, message) => {
    const ran = await faultlineInProcess([...args, '--regressions', join(dir, 'untouched')]);

    expectInputError(ran, message, 'explore');
    expect(() => readdirSync(join(dir, 'untouched'))).toThrow();
  });

  it('has help', async () => {
    const ran = await faultlineInProcess(['explore', '--help']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline explore SCENARIO \[options\]/);
    expect(ran.stdout).toContain('--max-faults M');
    expect(ran.stdout).toContain(
      'Exit codes: 0 no counterexample, 1 a counterexample was found (and saved), 2 bad arguments.',
    );
  });

  it('is listed in the top-level help', async () => {
    expect((await faultlineInProcess(['--help'])).stdout).toContain(
      'explore SCENARIO  search fault plans for the smallest one that breaks an agent',
    );
  });
});
