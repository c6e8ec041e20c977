import { describe, expect, it } from 'vitest';
import { configSchema } from '../../bin/config.js';
import { modelSetupFromFlags, modelWords } from '../../bin/model-options.js';

const config = configSchema.parse({
  models: {
    providers: { ollama: { api: 'openai-compatible', baseURL: 'http://localhost:11434/v1' } },
    default: 'ollama:llama3.1',
  },
});
const toolLoop = { name: 'tool-loop', callsModel: true };

describe('modelSetupFromFlags', () => {
  it('takes the config default for an agent that calls a model, and none for one that does not', () => {
    expect(modelSetupFromFlags({}, config, toolLoop, { env: {} })).toMatchObject({
      spec: 'ollama:llama3.1',
      api: 'openai-compatible',
      baseURL: 'http://localhost:11434/v1',
    });
    expect(modelSetupFromFlags({}, config, { name: 'reference', callsModel: false })).toBe(
      undefined,
    );
  });

  it('blames a bad default on the config file and field, not on a flag never given', () => {
    const bad = configSchema.parse({ models: { default: 'mistral:large' } });
    expect(() =>
      modelSetupFromFlags({}, bad, toolLoop, { configFile: 'x.config.ts', env: {} }),
    ).toThrow(/^config x\.config\.ts: models\.default mistral:large: unknown provider "mistral"/);
  });

  it('refuses a model option for an agent that calls no model, whichever option it is', () => {
    expect(() =>
      modelSetupFromFlags({ temperature: '0.1' }, config, { name: 'reference', callsModel: false }),
    ).toThrow(/^--temperature: agent reference does not call a model/);
  });

  it('names the setup on a replay command', () => {
    const setup = modelSetupFromFlags(
      { model: 'ollama:qwen', temperature: '0', 'model-seed': '3' },
      config,
      toolLoop,
      { env: {} },
    );
    expect(modelWords(setup)).toEqual(['--model ollama:qwen', '--temperature 0', '--model-seed 3']);
  });
});
