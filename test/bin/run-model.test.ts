import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { faultlineInProcess, type Ran } from '../support/cli.js';
import {
  OPENAI_BASE_URL,
  startProviderServer,
  type ProviderServer,
} from '../support/provider-server.js';

const KEY = 'sk-faultline-cli-secret-0123456789';
const AGENT = './test/fixtures/agents/model-tool-agent.ts';
const saved = { ...process.env };

/** Runs `faultline run` in process (msw sees its calls): what it printed and its exit code. */
function run(args: readonly string[]): Promise<Ran> {
  return faultlineInProcess(['run', ...args]);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let dir: string;
let config: string;
let provider: ProviderServer | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-run-model-'));
  config = join(dir, 'faultline.config.mjs');
  writeFileSync(
    config,
    `export default { models: {
      providers: { local: { api: 'openai-compatible', baseURL: 'https://compat.test/v1' } },
      prices: { 'openai:gpt-x': { inputPerMillion: 2, outputPerMillion: 10 } },
    } };\n`,
  );
  process.env.OPENAI_API_KEY = KEY;
  process.env.OPENAI_BASE_URL = OPENAI_BASE_URL;
});
afterAll(() => {
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY'])
    if (saved[name] === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = saved[name];
});
afterEach(() => {
  provider?.close();
  provider = undefined;
});

/** Each model call reads the order, then answers; $2/$10 per million: $0.004 a run. */
function readThenAnswer(): ProviderServer {
  return startProviderServer((request) =>
    request.messages.some((m) => m.role === 'tool')
      ? { text: 'read it', usage: { inputTokens: 500, outputTokens: 50 } }
      : {
          toolCalls: [{ name: 'get_order', args: { order_id: 'ord_4' } }],
          usage: { inputTokens: 500, outputTokens: 150 },
        },
  );
}

describe('faultline run --model', () => {
  it('runs a model agent against the provider, records the model in set and records, and refuses a resume with another model', async () => {
    provider = readThenAnswer();
    const out = join(dir, 'happy');
    const prompt = join(dir, 'prompt.md');
    writeFileSync(prompt, 'You refund carefully.\n');
    const args = [
      'refunds/partial-refund',
      '--plan',
      'none',
      '--agent',
      AGENT,
      '--config',
      config,
      '--out',
      out,
      '--model',
      'openai:gpt-x',
      '--prompt',
      prompt,
      '--temperature',
      '0.3',
      '--model-seed',
      '5',
    ];
    const ran = await run(args);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toMatch(
      /cost estimate: none — no earlier run of openai:gpt-x in .* \(\$2\.00 in \/ \$10\.00 out per million tokens\)/,
    );
    expect(ran.stdout).toContain(
      `model: openai:gpt-x at ${OPENAI_BASE_URL}, key from $OPENAI_API_KEY, prompt ${prompt} (sha256:`,
    );
    const request = provider.calls[0]?.request;
    expect(request?.system).toBe('You refund carefully.\n');
    expect(request?.body).toMatchObject({ model: 'gpt-x', temperature: 0.3, seed: 5 });

    const record = JSON.parse(readFileSync(join(out, 'results.jsonl'), 'utf8')) as {
      model: unknown;
      figures: { costUsd: number; modelCalls: number };
      replay: string;
    };
    expect(record.model).toEqual({
      id: 'openai:gpt-x',
      promptHash: expect.stringMatching(/^sha256:[0-9a-f]{12}$/) as unknown,
      temperature: 0.3,
      seed: 5,
    });
    expect(record.figures.modelCalls).toBe(2);
    expect(record.figures.costUsd).toBeCloseTo(0.004, 10);
    expect(record.replay).toContain(
      `--model openai:gpt-x --prompt ${prompt} --temperature 0.3 --model-seed 5`,
    );
    const set = JSON.parse(readFileSync(join(out, 'set.json'), 'utf8')) as { options: unknown };
    expect(set.options).toMatchObject({ model: 'openai:gpt-x', temperature: 0.3, modelSeed: 5 });
    for (const file of filesUnder(out)) expect(readFileSync(file).includes(KEY), file).toBe(false);

    const other = await run([...args.slice(0, -7), 'openai:gpt-y', ...args.slice(-6), '--resume']);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(
      /--resume: the set in .* was made with other options: --model openai:gpt-x \(this resume: openai:gpt-y\)/,
    );

    // Now the folder holds a run of the model: the estimate rests on what it cost.
    const again = await run(args);
    expect(again.stdout).toMatch(
      /cost estimate: ~\$0\.0040 for 1 run\(s\) \(\$0\.0040 a run, the mean of 1 earlier run\(s\) of openai:gpt-x/,
    );
  });

  it('--max-cost stops the suite once finished runs pass it; --resume makes the rest', async () => {
    provider = readThenAnswer();
    const out = join(dir, 'capped');
    const args = [
      'refunds/partial-refund',
      'refunds/full-refund',
      '--plan',
      'none',
      '--agent',
      AGENT,
      '--config',
      config,
      '--out',
      out,
      '--model',
      'openai:gpt-x',
    ];
    const stopped = await run([...args, '--max-cost', '0.001']);
    expect(stopped.status).toBe(1);
    expect(stopped.stdout).toMatch(
      /stopped: the model spend of the 1 finished run\(s\), \$0\.0040, passed --max-cost \$0\.0010; 1 run\(s\) not made — the finished ones are kept: rerun with --resume/,
    );
    expect(provider.calls).toHaveLength(2);
    expect(existsSync(join(out, 'results.jsonl'))).toBe(false);

    const resumed = await run([...args, '--max-cost', '1', '--resume']);
    expect(resumed.stdout).toMatch(/resumed: 1 finished run\(s\) kept, 1 run now/);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});

describe('faultline run --model: bad input, one line, nothing written', () => {
  const model = ['refunds/partial-refund', '--plan', 'none', '--agent', AGENT];
  it.each([
    [
      [...model, '--model', 'gpt-x'],
      /^faultline run: --model must be PROVIDER:MODEL, e\.g\. openai:gpt-4o-mini/,
    ],
    [
      [...model, '--model', 'mistral:large'],
      /unknown provider "mistral" \(known: openai, anthropic, local\); declare it in faultline\.config\.ts as models\.providers\.mistral/,
    ],
    [
      [...model, '--model', 'anthropic:claude-x'],
      /--model anthropic:claude-x: no API key: set the environment variable ANTHROPIC_API_KEY/,
    ],
    [model, /agent model-tool-agent calls a model: give one with --model PROVIDER:MODEL/],
    [
      ['refunds/partial-refund', '--model', 'openai:gpt-x'],
      /--model: agent reference does not call a model \(it does not declare exposes\.model\)/,
    ],
    [
      [...model, '--model', 'local:llama', '--max-cost', '1'],
      /--max-cost: no price for local:llama, so its spend cannot be counted/,
    ],
    [
      [...model, '--model', 'openai:gpt-x', '--temperature', '3'],
      /--temperature must be a number from 0 to 2 \(got "3"\)/,
    ],
    [
      [...model, '--model', 'openai:gpt-x', '--prompt', 'nope.md'],
      /--prompt nope\.md: no such file/,
    ],
  ])('%j', async (args, message) => {
    Reflect.deleteProperty(process.env, 'ANTHROPIC_API_KEY');
    const out = join(dir, 'refused');
    const ran = await run([...args, '--config', config, '--out', out]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a key written into the config, naming the field and never echoing it', async () => {
    const bad = join(dir, 'bad.config.mjs');
    writeFileSync(
      bad,
      `export default { models: { providers: { gw: { api: 'openai', apiKeyEnv: '${KEY}' } } } };\n`,
    );
    const ran = await run([...model, '--model', 'gw:m', '--config', bad]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(
      /models\.providers\.gw\.apiKeyEnv: must name an environment variable/,
    );
    expect(ran.stderr).not.toContain(KEY);
  });
});
