import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';
import type { Comparison } from '../../reports/compare.js';
import { tempDir } from '../support/cli.js';
import {
  OPENAI_BASE_URL,
  startProviderServer,
  type ProviderAnswer,
  type ProviderMessage,
  type ProviderRequest,
  type ProviderServer,
} from '../support/provider-server.js';

/**
 * End to end: two prompt versions of `tool-loop` compared. The model is served over msw as the
 * OpenAI Chat Completions API (the real @ai-sdk/openai code carries every request), and what it
 * answers depends on one line of the system prompt: with "Always pass an idempotency_key" it
 * keys its refund and resends a refund whose reply was lost under the same key (the world
 * returns the first refund); without it, it leaves the key out and the resent refund is made
 * twice. Both prompts run the lost-acknowledgement plan of the refunds library for 8 trials,
 * then `compare` must show the prompt hash as what differs, a recovery drop of 100 pp with
 * b = 8, c = 0 and p = 2/2^8 ≈ 0.0078 that gates (exit 1), and every regression with the
 * commands that replay it on both sides (--model, --prompt, and the model cassettes).
 *
 * The commands run in this process (`main`), so msw intercepts the provider calls; the CLI
 * spawned as a child would be out of msw's reach.
 *
 * SKIPPED until merged: it needs pieces other slices of issue 15 build — the `tool-loop` zoo
 * agent, `faultline run --model/--prompt/--record-model` (with `models` config or
 * OPENAI_BASE_URL for the base URL), and the model cassettes. The merge enables it.
 */

/** The line the model's care depends on. */
const CAREFUL_LINE =
  'Always pass an idempotency_key with every write that takes one, and reuse the same key when you retry that write.';
const BASE_PROMPT = `You do one job for a team by calling the tools you are given.
Read what you need before you change anything. If a tool call fails in a way that looks
temporary, you may try it again. When the job is done, answer with a short summary.`;

const TRIALS = 8;

/** The tool results of a conversation by call id: ok (JSON) or an error's text. */
function toolCalls(
  messages: readonly ProviderMessage[],
): { name: string; args: Record<string, unknown>; ok: boolean; value: unknown }[] {
  const results = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'tool' && m.toolCallId !== undefined) results.set(m.toolCallId, m.text);
  return messages.flatMap((m) =>
    (m.toolCalls ?? []).map((c) => {
      const text = results.get(c.id) ?? '';
      try {
        return {
          name: c.name,
          args: c.args as Record<string, unknown>,
          ok: true,
          value: JSON.parse(text) as unknown,
        };
      } catch {
        return { name: c.name, args: c.args as Record<string, unknown>, ok: false, value: text };
      }
    }),
  );
}

/**
 * A refund clerk of a model: reads the order, refunds the amount the objective names, tells the
 * customer, and resends a write that failed (twice at most). Careful — keyed writes, the same
 * key on a resend — only when its system prompt holds {@link CAREFUL_LINE}.
 */
function refundClerk(request: ProviderRequest): ProviderAnswer {
  const careful = request.system.includes('Always pass an idempotency_key');
  const first = request.messages.find((m) => m.role === 'user')?.text ?? '';
  const orderId = /"order_id":"([^"]+)"/.exec(first)?.[1];
  const dollars = /\$(\d+(?:\.\d\d)?)/.exec(first)?.[1];
  if (orderId === undefined) return { text: 'STOPPED: no order in the job' };
  const calls = toolCalls(request.messages);
  const last = calls.at(-1);
  const call = (name: string, args: Record<string, unknown>): ProviderAnswer => ({
    toolCalls: [{ name, args }],
  });
  if (!last) return call('get_order', { order_id: orderId });
  if (!last.ok) {
    const tries = calls.filter((c) => c.name === last.name).length;
    return tries > 2 ? { text: `STOPPED: ${last.name} keeps failing` } : call(last.name, last.args);
  }
  const order = calls.find((c) => c.name === 'get_order' && c.ok)?.value as
    { customer_id: string; refundable_cents: number } | undefined;
  if (!order) return { text: 'STOPPED: the order could not be read' };
  switch (last.name) {
    case 'get_order': {
      const refund = request.tools.find((t) => t.name === 'issue_refund');
      const takesKey = JSON.stringify(refund?.parameters ?? {}).includes('idempotency_key');
      return call('issue_refund', {
        order_id: orderId,
        amount_cents:
          dollars === undefined ? order.refundable_cents : Math.round(Number(dollars) * 100),
        reason: 'as the objective asks',
        ...(careful && takesKey ? { idempotency_key: `refund-${orderId}` } : {}),
      });
    }
    case 'issue_refund':
      return call('send_customer_message', {
        customer_id: order.customer_id,
        template: 'refund_issued',
        order_id: orderId,
      });
    default:
      return { text: 'Refunded the order and told the customer.' };
  }
}

/** An `Io` that keeps what a command printed. */
function capture(): Io & { stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    progress: () => undefined,
    progressDone: () => undefined,
    color: false,
    tty: false,
    stdout: () => out.join('\n'),
    stderr: () => err.join('\n'),
  };
}

async function faultlineHere(
  argv: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  const io = capture();
  const status = await main(argv, io);
  return { status, stdout: io.stdout(), stderr: io.stderr() };
}

const hashOf = (path: string): string =>
  `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12)}`;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('faultline compare: two prompt versions of tool-loop (model over msw)', () => {
  let root = '';
  let provider: ProviderServer;
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  beforeAll(() => {
    root = tempDir('prompt-compare');
    writeFileSync(join(root, 'A.md'), `${BASE_PROMPT}\n${CAREFUL_LINE}\n`);
    writeFileSync(join(root, 'B.md'), `${BASE_PROMPT}\n`);
    process.env.OPENAI_API_KEY = 'sk-prompt-compare';
    process.env.OPENAI_BASE_URL = OPENAI_BASE_URL;
    provider = startProviderServer(refundClerk);
  });
  afterAll(() => {
    provider.close();
    for (const [name, value] of [
      ['OPENAI_API_KEY', saved.key],
      ['OPENAI_BASE_URL', saved.url],
    ] as const) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('compares two prompt versions of tool-loop and shows the regression with its replay commands', async () => {
    const side = (name: 'a' | 'b') => ({
      prompt: join(root, `${name.toUpperCase()}.md`),
      out: join(root, name),
      cassettes: join(root, `${name}-model`),
    });
    const a = side('a');
    const b = side('b');
    const run = (s: typeof a) =>
      faultlineHere([
        'run',
        'refunds/*',
        '--plan',
        'refund-ack-lost',
        '--agent',
        'tool-loop',
        '--model',
        'openai:gpt-test',
        '--prompt',
        s.prompt,
        '--trials',
        String(TRIALS),
        '--record-model',
        s.cassettes,
        '--workers',
        '1',
        '--out',
        s.out,
      ]);

    const ranA = await run(a);
    const ranB = await run(b);
    // The careful prompt passes every trial; the careless one fails them all.
    expect(ranA.stderr).toBe('');
    expect(ranA.status).toBe(0);
    expect(ranB.status).toBe(1);
    // Every trial called the model over HTTP, under the prompt it was given.
    expect(provider.calls.some((c) => c.request.system.includes(CAREFUL_LINE))).toBe(true);

    const compared = await faultlineHere(['compare', a.out, b.out]);

    expect(compared.stderr).toBe('');
    expect(compared.status).toBe(1);
    const text = compared.stdout;
    expect(text).toContain(
      `What differs between A and B:\n  prompt hash  ${hashOf(a.prompt)} → ${hashOf(b.prompt)}\n`,
    );
    expect(text).toMatch(/The same on both sides: agent tool-loop .* · model openai:gpt-test · /);
    expect(text).toContain(`${TRIALS} pair(s) by scenario, fault plan, seed and trial`);
    expect(text).toMatch(
      /│ recovery \* +│ 100% +│ 0% +│ −100 pp +│ 8 +│ 0 +│ 0\.0078 +│ regressed +│/,
    );
    expect(text).toMatch(
      /│ integrity \* +│ 100% +│ 0% +│ −100 pp +│ 8 +│ 0 +│ 0\.0078 +│ regressed +│/,
    );
    expect(text).toContain(
      '  recovery   dropped 100 pp > 0 pp allowed and p = 0.0078 (b 8, c 0) ≤ α = 0.05: gates',
    );
    expect(text).toContain(`Regressions — passed in A, failed in B (${TRIALS}):`);
    expect(text).toContain('recovery: unreconciled-retry');
    expect(text).toContain('integrity: duplicate-effect');
    // Each regression replays both sides: the model, the prompt, and the recorded replies.
    const blocks = text.split('\n  ✗ ').slice(1);
    expect(blocks).toHaveLength(TRIALS);
    for (const block of blocks) {
      expect(block).toMatch(
        new RegExp(
          `replay A: npx faultline run refunds/partial-refund --plan refund-ack-lost --seed \\d+ --agent tool-loop .*--model openai:gpt-test .*--prompt ${escape(a.prompt)}`,
        ),
      );
      expect(block).toMatch(
        new RegExp(`replay B: .*--model openai:gpt-test .*--prompt ${escape(b.prompt)}`),
      );
      expect(block).toMatch(new RegExp(`--replay-model ${escape(a.cassettes)}`));
      expect(block).toMatch(new RegExp(`--replay-model ${escape(b.cassettes)}`));
    }
    expect(text).toMatch(/B regressed: .*recovery −100 pp \(p = 0\.0078\)/);

    const json = JSON.parse(
      (await faultlineHere(['compare', a.out, b.out, '--json'])).stdout,
    ) as Comparison;
    expect(json.versions.filter((v) => v.changed)).toEqual([
      { aspect: 'prompt', a: [hashOf(a.prompt)], b: [hashOf(b.prompt)], changed: true },
    ]);
    expect(json.rows.find((r) => r.row === 'recovery')).toMatchObject({
      lost: TRIALS,
      gained: 0,
      gate: 'regressed',
      a: { passK: 1 },
      b: { passK: 0 },
    });
    expect(json.regressions[0]?.replay.b).toContain(`--prompt ${b.prompt}`);
  }, 120_000);
});
