import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import type { AgentUnderTest } from '../agent.js';

/**
 * The agent an agent module provides, in a child process: its default export is an agent or
 * a factory (sync or async) returning one; a factory is called once, for this incarnation.
 * Imported through tsx's `tsImport`, so a `.ts` module works as well as built JavaScript.
 *
 * @example
 * ```ts
 * const agent = await importAgent('/home/me/agents/my-agent.ts');
 * ```
 */
export async function importAgent(path: string): Promise<AgentUnderTest> {
  const loaded = (await tsImport(pathToFileURL(path).href, import.meta.url)) as {
    default?: unknown;
  };
  const exported = loaded.default;
  const agent: unknown =
    typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!isAgent(agent)) {
    throw new Error(
      `${path}: the default export must be an agent (an object with a name and a start function) or a factory returning one`,
    );
  }
  return agent;
}

function isAgent(value: unknown): value is AgentUnderTest {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === 'string' && typeof v.start === 'function';
}
