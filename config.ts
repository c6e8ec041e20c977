/**
 * `faultline/config`: what a `faultline.config.ts` imports to type its default export.
 *
 * @example
 * ```ts
 * import { defineConfig } from 'faultline/config';
 * export default defineConfig({ run: { trials: 3 } });
 * ```
 */
export {
  defineConfig,
  AUTONOMY_LEVELS,
  type AutonomyLevel,
  type FaultlineConfig,
  type GateCriteria,
} from './bin/config.js';
