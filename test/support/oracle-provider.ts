import { afterAll, beforeAll } from 'vitest';
import { oracleRespond } from './oracle.js';
import { OPENAI_BASE_URL, startProviderServer, type ProviderServer } from './provider-server.js';

const ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] as const;

/**
 * For a test file that runs a model agent through the real OpenAI provider code: the oracle is
 * served over HTTP (msw, this process only) for the whole file, with `key` and the provider's
 * base URL in the environment, both put back afterwards. Returns the server, for its calls.
 */
export function useOracleProvider(key: string): () => ProviderServer {
  const saved: Record<string, string | undefined> = {};
  let provider: ProviderServer | undefined;
  beforeAll(() => {
    for (const name of ENV) saved[name] = process.env[name];
    process.env.OPENAI_API_KEY = key;
    process.env.OPENAI_BASE_URL = OPENAI_BASE_URL;
    provider = startProviderServer(oracleRespond());
  });
  afterAll(() => {
    provider?.close();
    for (const name of ENV)
      if (saved[name] === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = saved[name];
  });
  return () => {
    if (!provider) throw new Error('useOracleProvider: the provider starts in beforeAll');
    return provider;
  };
}
