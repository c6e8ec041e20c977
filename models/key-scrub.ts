import { REDACTED } from '../recordings/redact.js';
import type { ModelSetup } from './model-setup.js';
import { DEFAULT_KEY_ENV } from './provider-keys.js';

/** Shorter values are not scrubbed: a key is long, and a short one would blank ordinary text. */
const MIN_KEY_LENGTH = 8;

/**
 * `value` with every occurrence of the setup's API key (read from its environment variable now)
 * replaced by `[REDACTED]`, in every string at any depth. The pattern-based `redact` catches
 * keys that look like keys; this catches the run's own key whatever it looks like — a model
 * that echoes it, an agent that reports it — before anything is written.
 *
 * @example
 * const safe = scrubKey(setup, trajectory);
 */
export function scrubKey<T>(setup: ModelSetup | undefined, value: T): T {
  const env = setup?.apiKeyEnv ?? (setup ? DEFAULT_KEY_ENV[setup.provider] : undefined);
  const key = env === undefined ? undefined : process.env[env];
  if (key === undefined || key.length < MIN_KEY_LENGTH) return value;
  return deepReplace(value, key) as T;
}

function deepReplace(value: unknown, key: string): unknown {
  if (typeof value === 'string') return value.split(key).join(REDACTED);
  if (Array.isArray(value)) return value.map((v) => deepReplace(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, deepReplace(v, key)]),
    );
  }
  return value;
}
