import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findRun, type RunMatch } from '../../bin/commands/show.js';
import type { RunResult } from '../../reports/results.js';
import { faultlineInProcess, expectInputError, tempDir, type Ran } from '../support/cli.js';
import { makeResultSet } from '../support/result-sets.js';

/** The timeline's lines: [time or '', kind, the rest]. */
function timeline(stdout: string): [string, string, string][] {
  const start = stdout.indexOf('Timeline (virtual time)\n');
  const end = stdout.indexOf('\nFindings\n');
  return stdout
    .slice(start, end)
    .split('\n')
    .slice(1)
    .flatMap((line): [string, string, string][] => {
      const m = /^ {2}(.{8}) {2}(\w+) +(.*)$/.exec(line);
      return m ? [[m[1]!.trim(), m[2]!, m[3]!]] : [];
    });
}

/**
 * A real result set: the no-reconcile mutant on the partial refund under its lost-ack and
 * crash plans (one trial each) — it sends the customer's email twice when the mailer's
 * acknowledgement is lost, and resumes cleanly after each crash.
 */
let out: string;
let results: RunResult[];

beforeAll(async () => {
  out = tempDir('show');
  results = await makeResultSet(out, { agent: 'no-reconcile', faults: 'lost-ack,crash' });
});

function result(plan: string): RunResult {
  const found = results.find((r) => r.faultPlanId === plan);
  if (!found) throw new Error(`no ${plan} run`);
  return found;
}

describe('faultline show: a failing run', () => {
  let ran: Ran;
  beforeAll(async () => {
    ran = await faultlineInProcess([
      'show',
      'refunds/partial-refund/message-ack-lost/0',
      '--out',
      out,
    ]);
  });

  it('exits 0, nothing on stderr, no colour codes when NO_COLOR is set', () => {
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).not.toContain('\u001b[');
  });

  it('heads with the verdict, what ran, how it ended and how to replay it', () => {
    const r = result('message-ack-lost');

    expect(ran.stdout.split('\n')[0]).toBe(
      'FAIL refunds/partial-refund / message-ack-lost · trial 0',
    );
    expect(ran.stdout).toContain(`\nrun      ${r.id}\n`);
    expect(ran.stdout).toContain('\nfaults   lost-ack planned · lost-ack fired\n');
    expect(ran.stdout).toMatch(/^ended {4}completed · 8 call\(s\) · 3 effect\(s\) · 30s virtual$/m);
    expect(ran.stdout).toContain(`\nreplay   ${r.replay}\n`);
  });

  it('prints the timeline in virtual time: states, calls with faults, faults and effects', () => {
    const lines = timeline(ran.stdout);
    const kinds = lines.map(([, kind]) => kind);
    const at = (pattern: RegExp): number => lines.findIndex(([, , rest]) => pattern.test(rest));

    expect(lines[0]).toEqual([
      '0ms',
      'state',
      expect.stringMatching(/^→ created {2}run\.created: /),
    ]);
    expect(lines.at(-1)).toEqual(['', 'end', 'completed  ◀ [1]']);
    expect(new Set(kinds)).toEqual(new Set(['state', 'call', 'fault', 'effect', 'end']));
    const lost = at(
      /^0\/6 send_customer_message\(.*\) → no reply \(lost\) · reply dropped .*⚡ lost-ack/,
    );
    const resent = at(/^0\/7 send_customer_message\(.*\) → ok /);
    expect(lost).toBeGreaterThan(0);
    expect(lines[lost + 1]).toEqual([
      '',
      'fault',
      '#0 lost-ack: send_customer_message applied; its reply is lost  ◀ [3]',
    ]);
    expect(lines[lost + 2]![2]).toMatch(
      /^#2 send_customer_message message:cus_4:refund_issued:ord_4/,
    );
    expect(lines[resent]![0]).toBe('30s');
    expect(lines.filter(([time]) => time !== '').map(([time]) => time)).toEqual(['0ms', '30s']);
    expect(at(/^executing → completed {2}run\.completed/)).toBeGreaterThan(resent);
  });

  it('lists the findings per dimension, each with the entries it cites, marked in the timeline', () => {
    const findings = ran.stdout.slice(ran.stdout.indexOf('\nFindings\n'));

    expect(findings).toMatch(/^ {2}✗ recovery · score 0\.00$/m);
    expect(findings).toMatch(/^ {4}\[3\] unreconciled-retry: send_customer_message's outcome/m);
    expect(findings).toMatch(/^ {8}↳ 0ms call 0\/6 send_customer_message\(/m);
    expect(findings).toMatch(/^ {8}↳ 30s call 0\/7 send_customer_message\(/m);
    expect(findings).toMatch(/^ {4}\[2\] duplicate-effect: /m);
    expect(findings).toMatch(/^ {8}↳ 30s effect #3 send_customer_message /m);
    expect(findings).toMatch(
      /^ {2}✓ policy · tool-use · efficiency · operational · evidence: no findings$/m,
    );
    expect(timeline(ran.stdout).filter(([, , rest]) => rest.includes('◀ [2]'))).toHaveLength(2);
  });

  it('shows every agent event with --events', async () => {
    const all = await faultlineInProcess([
      'show',
      result('message-ack-lost').id,
      '--out',
      out,
      '--events',
    ]);

    expect(all.status).toBe(0);
    const lines = timeline(all.stdout);
    expect(lines.length).toBeGreaterThan(timeline(ran.stdout).length);
    const ambiguous = lines.findIndex(
      ([, kind, rest]) =>
        kind === 'event' && rest.startsWith('action.ambiguous notify (ambiguous)'),
    );
    const lost = lines.findIndex(([, , rest]) => rest.startsWith('0/6 send_customer_message'));
    expect(ambiguous).toBeGreaterThan(lost);
  });
});

describe('faultline show: a crash and its restart', () => {
  it('puts the crashed incarnation’s calls, the crash and the restart in order', async () => {
    const ran = await faultlineInProcess(['show', 'crash-after-apply', '--out', out]);

    expect(ran.status).toBe(0);
    expect(ran.stdout.split('\n')[0]).toBe(
      'PASS refunds/partial-refund / crash-after-apply · trial 0',
    );
    const lines = timeline(ran.stdout);
    const index = (kind: string, pattern: RegExp): number =>
      lines.findIndex(([, k, rest]) => k === kind && pattern.test(rest));
    const before = index('call', /^0\/4 issue_refund/);
    const fault = index('fault', /^#0 crash: /);
    const crash = index('crash', /^#0 at after-apply of refund \(in-process\)$/);
    const restart = index('restart', /^incarnation 1: resumed from last checkpoint$/);
    const after = index('call', /^1\/2 issue_refund/);
    expect([before, fault, crash, restart, after].every((i) => i >= 0)).toBe(true);
    expect(before < fault && fault < crash && crash < restart && restart < after).toBe(true);
    expect(ran.stdout).toContain('✓ outcome · policy · integrity · recovery · tool-use');
  });
});

describe('faultline show: naming the run', () => {
  it('takes a part of an id that names one run', async () => {
    const ran = await faultlineInProcess(['show', 'refund-ack', '--out', out]);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain(`\nrun      ${result('refund-ack-lost').id}\n`);
  });

  it('matches the most exact form first: id, scenario/plan/trial, scenario/plan, any part', () => {
    const r = result('refund-ack-lost');
    const found = (query: string, runs: readonly RunResult[] = results): RunMatch =>
      findRun(runs, query);

    expect(found(r.id)).toEqual({ kind: 'found', run: r });
    expect(found('refunds/partial-refund/refund-ack-lost/0')).toEqual({ kind: 'found', run: r });
    expect(found('refunds/partial-refund/refund-ack-lost')).toEqual({ kind: 'found', run: r });
    expect(found('refund-ack')).toEqual({ kind: 'found', run: r });
    expect(found('crash-after')).toMatchObject({ kind: 'ambiguous', runs: { length: 2 } });
    expect(found('nothing')).toEqual({ kind: 'none' });
    // Another agent's run of the same case makes the short name ambiguous, not the id.
    const other = { ...r, id: r.id.replace('no-reconcile', 'reference'), agent: 'reference' };
    expect(found('refunds/partial-refund/refund-ack-lost/0', [r, other])).toMatchObject({
      kind: 'ambiguous',
    });
    expect(found(other.id, [r, other])).toEqual({ kind: 'found', run: other });
  });

  it('refuses a name that matches several runs, listing them', async () => {
    const names = results.map((r) => `${r.scenarioId}/${r.faultPlanId}/${r.trial}`);

    // One run for each of partial-refund's fault plans and the fault-free run.
    expect(names).toHaveLength(5);
    expectInputError(
      await faultlineInProcess(['show', 'partial-refund', '--out', out]),
      // The first four are listed, the rest counted.
      new RegExp(
        `"partial-refund" matches 5 runs: ${names.slice(0, 4).join(', ')}, … 1 more \\(give more of it\\)$`,
      ),
      'show',
    );
  });

  it('refuses a name that matches no run, saying where it looked', async () => {
    expectInputError(
      await faultlineInProcess(['show', 'no-such-run', '--out', out]),
      new RegExp(
        `no run matches "no-such-run" in ${out}/results\\.jsonl \\(runs: refunds/partial-refund/`,
      ),
      'show',
    );
  });

  it('refuses a missing RUN, two RUNs, and a folder with no results', async () => {
    expectInputError(await faultlineInProcess(['show', '--out', out]), /which run\?/, 'show');
    expectInputError(
      await faultlineInProcess(['show', 'a', 'b', '--out', out]),
      /one run at a time/,
      'show',
    );
    const empty = tempDir('show-empty');
    expectInputError(
      await faultlineInProcess(['show', 'x', '--out', empty]),
      /no results here/,
      'show',
    );
  });

  it('refuses a run whose trajectory is missing or corrupt, naming the file', async () => {
    const broken = tempDir('show-broken');
    cpSync(out, broken, { recursive: true });
    const r = result('refund-ack-lost');
    writeFileSync(join(broken, r.trajectoryFile), '{"format": "faultline-traj');
    expectInputError(
      await faultlineInProcess(['show', r.id, '--out', broken]),
      /trajectories\/.*refund-ack-lost_0\.json: not JSON/,
      'show',
    );
    writeFileSync(join(broken, r.trajectoryFile), '{"format": "other"}');
    expectInputError(
      await faultlineInProcess(['show', r.id, '--out', broken]),
      /not a faultline trajectory/,
      'show',
    );
    rmSync(join(broken, r.trajectoryFile));
    expectInputError(
      await faultlineInProcess(['show', r.id, '--out', broken]),
      /refund-ack-lost_0\.json: the trajectory of run .* is missing$/,
      'show',
    );
  });

  it('prints its help and exits 0', async () => {
    const ran = await faultlineInProcess(['show', '--help']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline show RUN \[options\]/);
  });
});
