import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOW_HELP, showCommand } from '../../bin/commands/show.js';
import type { Io } from '../../bin/io.js';
import { readResults, type RunResult } from '../../reports/results.js';
import { renderShow, TRANSCRIPT_TEXT_LIMIT } from '../../reports/show.js';
import { faultlineInProcess, tempDir } from '../support/cli.js';
import { HOSTILE_REPLY, LONG_REPLY, runWithModel } from '../support/model-runs.js';
import { makeResultSet } from '../support/result-sets.js';

/**
 * `faultline show RUN --transcript` on a real run whose agent called its model four times (a
 * tool call, a reply under a model fault, a long reply, a rate-limited call), in process
 * through the command's entry point, and once through the real CLI.
 */
let dir: string;
let out: string;
let run: RunResult;

beforeAll(async () => {
  dir = tempDir('show-transcript');
  out = join(dir, 'set');
  await runWithModel(out);
  const [only] = readResults(out).results;
  if (!only) throw new Error('the run with a model is missing');
  run = only;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `show` in process, colourless, and returns what it printed. */
async function show(args: string[]): Promise<string> {
  const printed: string[] = [];
  const io: Io = {
    out: (t) => printed.push(t),
    err: (t) => printed.push(t),
    progress: () => undefined,
    progressDone: () => undefined,
    color: false,
    tty: false,
  };
  expect(await showCommand([...args, '--out', out], io)).toBe(0);
  return printed.join('\n');
}

/** The transcript section's lines. */
function transcript(text: string): string[] {
  const start = text.indexOf('\nModel transcript\n');
  expect(start).toBeGreaterThan(0);
  return text.slice(start + 1).split('\n');
}

describe('faultline show --transcript', () => {
  it('names the model and its usage beside the agent, and says how to see the calls', async () => {
    const text = await show([run.id]);
    const lines = text.split('\n');
    const agent = lines.findIndex((l) => l.startsWith('agent    chatty 1.0.0'));
    expect(lines[agent + 1]).toMatch(
      /^model {4}openai:gpt-test · prompt sha256:0123456789ab · temperature 0 · seed 7 · 4 model calls · 600 in \/ 255 out tokens · \$0\.00405 · \S+ model latency$/,
    );
    expect(text).not.toContain('Model transcript');
    expect(lines.at(-1)).toBe('(4 model calls: --transcript prints them)');
  });

  it('prints each call: number, model, tokens, cost, latency, fault or error', async () => {
    const lines = transcript(await show([run.id, '--transcript']));
    const heads = lines.filter((l) => /^ {2}#\d/.test(l));
    expect(heads).toEqual([
      '  #1 openai:gpt-test · 0ms · incarnation 0 · 120 in / 15 out tokens · $0.00045 · 350ms',
      '  #2 openai:gpt-test · 0ms · incarnation 0 · 180 in / 40 out tokens · $0.00085 · 650ms · fault: invalid-output: reply garbled',
      '  #3 openai:gpt-test · 0ms · incarnation 0 · 300 in / 200 out tokens · $0.00275 · 1.0s',
      expect.stringMatching(
        /^ {2}#4 openai:gpt-test · 0ms · incarnation 0 · 0 in \/ 0 out tokens · \$0\.00 · \d+ms · error: rate_limited$/,
      ),
    ]);
    expect(lines).toContain('    ✗ rate_limited: Rate limit reached for requests');
  });

  it('prints the messages each call added, counts the ones sent again, and the reply', async () => {
    const lines = transcript(await show([run.id, '--transcript']));
    const call = (n: number): string[] => {
      const from = lines.findIndex((l) => l.startsWith(`  #${n} `));
      const to = lines.findIndex((l, i) => i > from && /^ {2}#\d/.test(l));
      return lines.slice(from + 1, to === -1 ? undefined : to);
    };
    expect(call(1)).toEqual([
      '      system: You settle refunds.',
      '      user: Refund order ord_1 in full.',
      '      tools offered: lookup_order',
      '    → reply: tool call lookup_order call_1 {"order_id":"ord_1"}',
      '      finish reason: tool-calls',
    ]);
    expect(call(2)).toEqual([
      '      +2 earlier messages (sent again unchanged)',
      '      assistant: tool call lookup_order call_1 {"order_id":"ord_1"}',
      '      tool: tool result lookup_order call_1 {"order_id":"ord_1","total":42}',
      '      tools offered: lookup_order',
      `    → reply: ${HOSTILE_REPLY}`,
      '      finish reason: stop',
    ]);
  });

  it('cuts a long text and says how much it left out and where it is', async () => {
    const lines = transcript(await show([run.id, '--transcript']));
    const reply = lines.find((l) => l.startsWith('    → reply: The refund is settled.'));
    expect(reply).toBe(
      `    → reply: ${LONG_REPLY.slice(0, TRANSCRIPT_TEXT_LIMIT)}… [${(LONG_REPLY.length - TRANSCRIPT_TEXT_LIMIT).toLocaleString('en-US')} more characters; ${run.trajectoryFile} has them all]`,
    );
  });

  it('keeps a model’s control characters from acting on the terminal', () => {
    const trajectory = JSON.parse(readFileSync(join(out, run.trajectoryFile), 'utf8')) as {
      modelCalls: { reply: { text: string } | null }[];
    };
    const reply = trajectory.modelCalls[1]?.reply;
    if (!reply) throw new Error('call 2 has no reply');
    reply.text = 'line one\nline two \u001b[2J\u202Eevil';
    const lines = transcript(renderShow(run, trajectory, { color: false, transcript: true }));
    expect(lines).toContain('    → reply: line one');
    expect(lines).toContain('             line two \\u001b[2J\\u202eevil');
  });

  it('says so when the run had no model', async () => {
    const plain = join(dir, 'plain');
    const [r] = await makeResultSet(plain, {
      agent: 'reference',
      globs: ['refunds/full-refund'],
      faults: 'none',
    });
    if (!r) throw new Error('no run');
    const text = renderShow(
      r,
      JSON.parse(readFileSync(join(plain, r.trajectoryFile), 'utf8')) as unknown,
      { color: false, transcript: true },
    );
    expect(text.split('\n').slice(-2)).toEqual([
      'Model transcript',
      '  (the run had no model: nothing to show)',
    ]);
    expect(
      renderShow(r, JSON.parse(readFileSync(join(plain, r.trajectoryFile), 'utf8')) as unknown, {
        color: false,
      }),
    ).not.toMatch(/model/i);
  });

  it('works from the real command line, and its help says so', async () => {
    const ran = await faultlineInProcess(['show', run.id, '--transcript', '--out', out]);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('\nModel transcript\n');
    expect(ran.stdout).toContain('  #4 openai:gpt-test');
    expect(SHOW_HELP).toMatch(/--transcript {5}then the run's model transcript/);
  });
});
