import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults, type RunResult } from '../../reports/results.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { FAULTLINE_BIN, faultlineInProcess, ROOT, tempDir, type Ran } from '../support/cli.js';

const CLIENT = join(ROOT, 'test/fixtures/mcp-client.js');
/** Small, so a fault's delays take milliseconds of wall time (a 90 s rate limit: 90 ms). */
const SCALE = '0.001';

/** Runs the stock-SDK fixture client in a child process; it spawns or reaches `serve`. */
function client(args: readonly string[], env: NodeJS.ProcessEnv = {}): Ran {
  const ran = spawnSync(process.execPath, [CLIENT, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (ran.error) throw ran.error;
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

function only(out: string): { result: RunResult; trajectory: Trajectory } {
  const { results } = readResults(out);
  expect(results).toHaveLength(1);
  const result = results[0]!;
  const trajectory = JSON.parse(
    readFileSync(join(out, result.trajectoryFile), 'utf8'),
  ) as Trajectory;
  return { result, trajectory };
}

/** `faultline serve … --port 0` in the background: its URL and token, and how it ended. */
async function serveHttp(args: readonly string[]): Promise<{
  url: string;
  token: string;
  ended: Promise<Ran>;
  kill: (signal: NodeJS.Signals) => void;
}> {
  const child = spawn(process.execPath, [FAULTLINE_BIN, 'serve', ...args, '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<Ran>((resolve) => {
    child.on('close', (status) => {
      resolve({ status, stdout, stderr });
    });
  });
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const m = /listening on (\S+) \(Authorization: Bearer (\S+)\)/.exec(stdout);
      if (m) resolve(m);
    });
    void ended.then((ran) => {
      reject(new Error(`serve ended before listening: ${ran.stderr}`));
    });
  });
  return {
    url: line[1]!,
    token: line[2]!,
    ended,
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

describe('faultline serve over stdio: a stock MCP client in a child process', () => {
  it(
    'grades a correct client as a pass, and show reads the run',
    { timeout: 120_000 },
    async () => {
      const out = tempDir('serve-stdio');
      // The README's example, word for word, writing into a folder of the test's own.
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const example = /<!-- serve-example -->\s*```\n(.*)\n```/.exec(readme)?.[1] ?? '';
      const [node, script, ...args] = example.split(' ');
      expect([node, script]).toEqual(['node', 'test/fixtures/mcp-client.js']);
      const ran = client([...args, '--out', out]);

      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toBe('');
      // serve's lines reach the client's stderr (inherited): stdout carried MCP only.
      expect(ran.stderr).toMatch(
        /\[1\/1\] ok {3}refunds\/partial-refund \/ none → returned .* · fixture-client 1\.2\.3 · the client closed stdin/,
      );
      const { result, trajectory } = only(out);
      expect(result).toMatchObject({
        agent: 'fixture-client',
        scenarioId: 'refunds/partial-refund',
        faultPlanId: 'none',
        state: 'returned',
        pass: true,
        mismatches: [],
      });
      expect(trajectory.agent).toBe('fixture-client');
      expect(trajectory.calls.map((c) => c.tool)).toEqual([
        'get_order',
        'issue_refund',
        'send_customer_message',
      ]);
      expect(trajectory.agentRecords).toBeNull();
      expect(readFileSync(join(out, 'set.json'), 'utf8')).toContain('"agent": "fixture-client"');

      // In process: show reads the folder serve wrote; another Node would prove nothing more.
      const shown = await faultlineInProcess([
        'show',
        'refunds/partial-refund/none/0',
        '--out',
        out,
      ]);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout.split('\n')[0]).toBe('PASS refunds/partial-refund / none · trial 0');
    },
  );

  it(
    'shows a client that sends the write twice as a duplicate effect',
    { timeout: 120_000 },
    () => {
      const out = tempDir('serve-twice');
      const ran = client([
        '--twice',
        '--',
        process.execPath,
        FAULTLINE_BIN,
        'serve',
        'refunds/partial-refund',
        '--stdio',
        '--time-scale',
        SCALE,
        '--out',
        out,
      ]);

      expect(ran.status, ran.stderr).toBe(0);
      const { result } = only(out);
      expect(result.pass).toBe(false);
      expect(result.grades.integrity!.findings.map((f) => f.code)).toContain('duplicate-effect');
    },
  );
});

describe('faultline serve over Streamable HTTP', () => {
  it(
    'refuses a request without the bearer token, and grades a client under a fault plan',
    {
      timeout: 120_000,
    },
    async () => {
      const out = tempDir('serve-http');
      const served = await serveHttp([
        'refunds/partial-refund',
        '--plan',
        'message-flaky',
        '--time-scale',
        SCALE,
        '--out',
        out,
      ]);
      const post = (headers: Record<string, string>) =>
        fetch(served.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{}',
        });
      expect((await post({})).status).toBe(401);
      const wrong = await post({ authorization: 'Bearer wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer');

      const ran = client(['--url', served.url], { FAULTLINE_TOKEN: served.token });
      const ended = await served.ended;

      expect(ran.status, ran.stderr).toBe(0);
      // The 90 s retry-after reaches the client in its own (wall) time: 90 ms at this scale.
      expect(ran.stderr).toContain('send_customer_message: rate_limited, retrying in 90 ms');
      expect(ended.status, ended.stderr).toBe(0);
      expect(ended.stdout).toContain('the client closed the session');
      const { result, trajectory } = only(out);
      expect(result).toMatchObject({ faultPlanId: 'message-flaky', pass: true });
      expect(result.faultsFired.sort()).toEqual(['rate-limit', 'transient']);
      // Virtual time follows the client's wall time: its 90 ms wait was the 90 s window.
      const sends = trajectory.calls.filter((c) => c.tool === 'send_customer_message');
      expect(sends).toHaveLength(3);
      expect(sends[2]!.at - sends[1]!.at).toBeGreaterThanOrEqual(90_000);
    },
  );

  it(
    'grades a client that left without ending its session when interrupted, with the HTML report',
    {
      timeout: 120_000,
    },
    async () => {
      const out = tempDir('serve-sigint');
      const served = await serveHttp([
        'refunds/partial-refund',
        '--time-scale',
        SCALE,
        '--reporter',
        'html',
        '--out',
        out,
      ]);
      const ran = client(['--leave', '--url', served.url], { FAULTLINE_TOKEN: served.token });
      expect(ran.status, ran.stderr).toBe(0);
      served.kill('SIGINT');
      const ended = await served.ended;

      expect(ended.status, ended.stderr).toBe(0);
      expect(ended.stdout).toContain('· fixture-client 1.2.3 · interrupted (SIGINT)');
      expect(ended.stdout).toContain(`html report: ${join(out, 'report.html')}`);
      expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('refunds/partial-refund');
      expect(only(out).result).toMatchObject({ pass: true, detail: 'interrupted (SIGINT)' });
    },
  );

  it('ends after --idle with no client, writing nothing', { timeout: 120_000 }, async () => {
    const out = join(tempDir('serve-idle'), 'set');
    const served = await serveHttp(['refunds/partial-refund', '--idle', '1', '--out', out]);
    const ended = await served.ended;

    expect(ended.status).toBe(1);
    expect(ended.stderr).toMatch(
      /no MCP client completed initialize before the session ended \(no message from the client for 1 s\); nothing to grade, nothing written/,
    );
    expect(existsSync(join(out, 'results.jsonl'))).toBe(false);
  });
});

describe('faultline serve: bad input', () => {
  /** Runs the command in process; what it printed and its exit code. */
  function serve(args: readonly string[]): Promise<Ran> {
    return faultlineInProcess(['serve', ...args]);
  }

  it.each([
    [['nope/none', '--stdio'], /unknown scenario "nope\/none"/],
    [
      ['refunds/partial-refund', '--stdio', '--plan', 'nope'],
      /--plan: refunds\/partial-refund has no fault plan "nope" \(plans: none, refund-ack-lost, /,
    ],
    [['refunds/partial-refund'], /choose one transport: --stdio .* or --port N/],
    [['refunds/partial-refund', '--stdio', '--port', '0'], /choose one transport/],
    [['--stdio'], /expected one scenario id \(got none\)/],
    [
      ['refunds/partial-refund', '--stdio', '--time-scale', '0'],
      /--time-scale must be a number above 0 and at most 1/,
    ],
    [['refunds/partial-refund', '--stdio', '--time-scale', 'fast'], /--time-scale must be/],
    [
      ['refunds/partial-refund', '--port', '70000'],
      /--port must be a whole number from 0 to 65535 \(got "70000"\)/,
    ],
    [['refunds/partial-refund', '--stdio', '--seed', '-1'], /--seed must be a whole number/],
    [['refunds/partial-refund', '--stdio', '--idle', '0'], /--idle must be a whole number from 1/],
    [['refunds/partial-refund', '--stdio', '--bogus'], /Unknown option '--bogus'/],
    [['refunds/partial-refund', '--stdio', '--reporter', 'nope'], /unknown reporter "nope"/],
    [
      [
        'fixtures/child-crash',
        '--stdio',
        '--plan',
        'killed',
        '--scenarios',
        join(ROOT, 'test/fixtures/child-crash-scenario.ts'),
      ],
      /fault plan killed: faults\[0\] crashes the agent as a child process .* cannot kill/,
    ],
  ])('%j: one line, exit 2, nothing written', async (args, pattern) => {
    const out = join(tempDir('serve-bad'), 'set');
    const ran = await serve([...args, '--out', out]);

    expect(ran.stdout).toBe('');
    const lines = ran.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^faultline serve: /);
    expect(lines[0]).toMatch(pattern);
    expect(ran.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
