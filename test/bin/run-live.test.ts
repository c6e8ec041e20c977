import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectInputError, faultlineInProcess, tempDir } from '../support/cli.js';
import { startLiveServer, type LiveServer } from '../support/live-server.js';

const TOKEN = 'never-written-token-1234';
const AUTH = `Authorization: Bearer ${TOKEN}`;
let server: LiveServer;
let out: string;
beforeEach(async () => {
  server = await startLiveServer({ token: TOKEN });
  out = tempDir('run-live');
  rmSync(out, { recursive: true, force: true });
});
afterEach(async () => {
  await server.close();
  rmSync(out, { recursive: true, force: true });
});

/** Every file under `dir`, with its text. */
function files(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'latin1') }));
}

const shadowRun = (...extra: string[]) =>
  faultlineInProcess([
    'run',
    'refunds/partial-refund',
    '--mode',
    'shadow',
    '--url',
    server.url,
    '--header',
    AUTH,
    '--out',
    out,
    ...extra,
  ]);

describe('faultline run --mode shadow against a live server', () => {
  it('runs the agent against the live server: reads live, writes held and graded as proposals, headers written nowhere', async () => {
    const ran = await shadowRun(
      '--agent',
      'test/fixtures/agents/proposer.ts',
      '--reporter',
      'json',
      '--reporter',
      'html',
    );
    expect(ran.stderr).toBe('');
    expect(ran.status, ran.stdout).toBe(0);
    expect(server.calls.map((c) => c.tool)).toEqual(['get_order']);
    expect(server.world.ledger.size).toBe(0);
    const [result] = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result).toMatchObject({
      mode: 'shadow',
      faultPlanId: 'none',
      pass: true,
      state: 'completed',
    });
    expect(String(result?.['replay'])).toContain(`--url ${server.url} --header '…'`);
    const trajectory = JSON.parse(
      readFileSync(join(out, String(result?.['trajectoryFile'])), 'utf8'),
    ) as { proposals: { tool: string }[] };
    expect(trajectory.proposals.map((p) => p.tool)).toEqual([
      'issue_refund',
      'send_customer_message',
    ]);
    for (const f of files(out)) expect(f.text, f.path).not.toContain(TOKEN);
    expect(ran.stdout).not.toContain(TOKEN);

    const shown = await faultlineInProcess(['show', 'refunds/partial-refund/none', '--out', out]);
    expect(shown.stdout).toContain('Proposals (writes held in shadow mode');
    expect(shown.stdout).toMatch(/#1 .*issue_refund .*order_id.*ord_4.* · after 1 read\(s\)/);
    expect(shown.stdout).toMatch(/#2 .*send_customer_message/);

    const page = readFileSync(join(out, 'report.html'), 'utf8');
    expect(page).toContain('Proposals: writes held in shadow mode');
    expect(page).toContain('<code>issue_refund</code>');

    const promoted = await faultlineInProcess(['promote', out, '--to', 'shadow', '--json']);
    const verdict = JSON.parse(promoted.stdout) as { runs: number; mode: string };
    expect(verdict).toMatchObject({ mode: 'shadow', runs: 1 });
  });

  it('fails the run of an agent whose write is outside the contract', async () => {
    const ran = await shadowRun('--agent', 'test/fixtures/agents/proposer-out-of-scope.ts');
    expect(ran.status).toBe(1);
    expect(ran.stdout).toMatch(/FAIL|fail/);
    expect(server.calls).toEqual([]);
  });

  it('refuses what a live run cannot be, in one line, writing nothing', async () => {
    const refused = [
      [['--server', 'node x.js'], /--mode shadow/],
      [['--url', server.url, '--mode', 'bounded'], /shadow mode only.*faultline record/],
      [['--url', server.url, '--mode', 'shadow', '--workers', '2'], /--workers 2/],
      [['--url', server.url, '--mode', 'shadow', '--plan', 'refund-ack-lost'], /injects no faults/],
      [['--url', server.url, '--mode', 'shadow', '--faults', 'lost-ack'], /injects no faults/],
      [['--header', AUTH, '--mode', 'shadow'], /--header goes with --url/],
      [['--url', 'ftp://x', '--mode', 'shadow'], /--url must be an http/],
      [['--url', server.url, '--server', 'node x', '--mode', 'shadow'], /choose one live server/],
      [
        ['--url', server.url, '--mode', 'shadow', '--header', 'Authorization: Bearer wrong-secret'],
        /live server .*could not connect/,
      ],
    ] as const;
    for (const [args, pattern] of refused) {
      const ran = await faultlineInProcess([
        'run',
        'refunds/partial-refund',
        '--out',
        out,
        ...args,
      ]);
      expectInputError(ran, pattern, 'run');
      expect(ran.stderr).not.toContain('wrong-secret');
      expect(existsSync(out)).toBe(false);
    }
  });
});
