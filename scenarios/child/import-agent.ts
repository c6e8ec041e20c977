import type { AgentUnderTest } from '../agent.js';
import { loadAgentModule } from '../agent-module.js';

/**
 * The agent an agent module provides, in a child process: its default export is an agent or
 * a factory (sync or async) returning one; a factory is called once, for this incarnation.
 * Loaded and checked as `--agent` loads it (`loadAgentModule`), `.ts` included.
 *
 * @example
 * ```ts
 * const agent = await importAgent('/home/me/agents/my-agent.ts');
 * ```
 */
export async function importAgent(path: string): Promise<AgentUnderTest> {
  return (await loadAgentModule(path))();
}
