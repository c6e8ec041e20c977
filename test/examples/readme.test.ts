import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The code block README shows under `<!-- examples/<file> -->`. */
function shown(file: string): string | undefined {
  const at = readme.indexOf(`<!-- examples/${file} -->`);
  if (at < 0) return undefined;
  return /```ts\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
}

describe('README, "Test your own agent"', () => {
  // The examples the tests run (test/examples/*, test/bin/agents.test.ts), as a user imports
  // faultline: the package entry and its adapter subpaths instead of the checkout's files.
  it.each([
    ['my-agent.ts', "'../index.js'", "'faultline'"],
    ['plain-agent.ts', "'../index.js'", "'faultline'"],
    ['ai-sdk-agent.ts', "'../adapters/ai-sdk.js'", "'faultline/ai-sdk'"],
    ['langgraph-agent.ts', "'../adapters/langgraph.js'", "'faultline/langgraph'"],
  ])('shows examples/%s verbatim, importing %s as %s', (file, local, subpath) => {
    const source = readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8');
    expect(source).toContain(local);
    expect(shown(file)).toBe(source.replace(local, subpath));
  });
});
