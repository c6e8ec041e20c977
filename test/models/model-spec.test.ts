import { describe, expect, it } from 'vitest';
import { resolveModelSpec } from '../../models/model-spec.js';
import { promptHash } from '../../models/prompt-file.js';

const KEY = 'sk-secret-never-stored-123456';

describe('resolveModelSpec', () => {
  it('opens a built-in provider with its key variable named, never its key', () => {
    const result = resolveModelSpec({
      spec: 'openai:gpt-4o-mini',
      env: { OPENAI_API_KEY: KEY },
      models: {
        prices: { 'openai:gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 } },
      },
      temperature: 0.2,
      seed: 7,
    });
    expect(result).toEqual({
      ok: true,
      setup: {
        spec: 'openai:gpt-4o-mini',
        provider: 'openai',
        api: 'openai',
        modelId: 'gpt-4o-mini',
        apiKeyEnv: 'OPENAI_API_KEY',
        prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
        temperature: 0.2,
        seed: 7,
      },
    });
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it('honours OPENAI_BASE_URL / ANTHROPIC_BASE_URL, and the config before them', () => {
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'https://proxy.example/v1' };
    const fromEnv = resolveModelSpec({ spec: 'anthropic:claude-x', env });
    expect(fromEnv.ok && fromEnv.setup.baseURL).toBe('https://proxy.example/v1');
    const fromConfig = resolveModelSpec({
      spec: 'anthropic:claude-x',
      env,
      models: { providers: { anthropic: { api: 'anthropic', baseURL: 'https://gw.example/v1' } } },
    });
    expect(fromConfig.ok && fromConfig.setup.baseURL).toBe('https://gw.example/v1');
  });

  it('opens a configured openai-compatible provider, keyless when it names no key variable', () => {
    const result = resolveModelSpec({
      spec: 'ollama:llama3.1:8b',
      env: {},
      models: {
        providers: { ollama: { api: 'openai-compatible', baseURL: 'http://localhost:11434/v1' } },
      },
    });
    expect(result).toMatchObject({
      ok: true,
      setup: { provider: 'ollama', api: 'openai-compatible', modelId: 'llama3.1:8b' },
    });
    expect(result.ok && 'apiKeyEnv' in result.setup).toBe(false);
  });

  it.each([
    ['gpt-4o-mini', 'malformed-spec', /--model must be PROVIDER:MODEL/],
    ['openai:', 'malformed-spec', /PROVIDER:MODEL/],
    [
      'mistral:large',
      'unknown-provider',
      /unknown provider "mistral" \(known: openai, anthropic\); declare it .*models\.providers\.mistral/,
    ],
    ['openai:gpt-4o', 'missing-key', /set the environment variable OPENAI_API_KEY/],
  ])('refuses %s as %s', (spec, code, message) => {
    const result = resolveModelSpec({ spec, env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.code).toBe(code);
    expect(result.problem.message).toMatch(message);
    expect(result.problem.message).not.toContain('\n');
  });

  it('needs no key when replies are replayed', () => {
    expect(resolveModelSpec({ spec: 'openai:gpt-4o', env: {}, replayDir: 'cassettes' }).ok).toBe(
      true,
    );
  });

  it('asks a configured key variable by name, and a base URL of an openai-compatible provider', () => {
    const keyed = resolveModelSpec({
      spec: 'gw:m',
      env: {},
      models: { providers: { gw: { api: 'openai', apiKeyEnv: 'GW_KEY' } } },
    });
    expect(!keyed.ok && keyed.problem.message).toMatch(/GW_KEY/);
    const noUrl = resolveModelSpec({
      spec: 'vllm:m',
      env: {},
      models: { providers: { vllm: { api: 'openai-compatible' } } },
    });
    expect(!noUrl.ok && noUrl.problem.code).toBe('no-base-url');
  });
});

describe('promptHash', () => {
  it('is sha256: and 12 hex digits, changing with one character', () => {
    expect(promptHash('Be careful.')).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(promptHash('Be careful.')).not.toBe(promptHash('Be careful!'));
  });
});
