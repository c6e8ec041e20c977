/**
 * `faultline/config`: what a `faultline.config.ts` needs — `defineConfig`, which types its
 * default export, and the config's types.
 *
 * @example
 * ```ts
 * import { defineConfig } from 'faultline/config';
 * export default defineConfig({ agents: { mine: './my-agent.ts' }, run: { agent: 'mine' } });
 * ```
 */
export {
  AUTONOMY_LEVELS,
  LEVEL_DEFAULTS,
  defineConfig,
  type AutonomyLevel,
  type FaultlineConfig,
  type FaultlineConfigInput,
  type GateCriteria,
} from './bin/config.js';
export type { AgentExport, AgentFactory } from './scenarios/agent-module.js';
