import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidInputError } from '../runtime/errors.js';
import { importUserModule } from './user-module.js';
import type { AgentUnderTest } from './agent.js';

/** A function that builds an agent under test: called once per trial, so each gets a fresh one. */
export type AgentFactory = () => AgentUnderTest | Promise<AgentUnderTest>;

/**
 * What a user's agent module may export by default: an agent, or (preferred) a factory, so
 * every trial starts from a fresh agent and no state leaks from one run into the next.
 */
export type AgentExport = AgentUnderTest | AgentFactory;

/** File names `--agent` reads as a module rather than an agent's name. */
export const AGENT_MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/** What a module must default-export, as every refusal says it. */
export const EXPECTED_EXPORT =
  'default export must be an agent (an object with name and start()) or a function returning one';

/**
 * Imports a user's module (see {@link importUserModule}: a `.ts` file loads even when faultline
 * runs as plain JavaScript, and its `import 'faultline'` gets the instances the command runs on).
 */
export const importModule = importUserModule;

/**
 * A factory for the agent a module exports: its default export checked (an agent, or a
 * function returning one). A factory is called each time; an exported object is handed out as
 * is every time, so it must be one that can run trial after trial. Throws
 * {@link InvalidInputError} naming the file when the module cannot be loaded or exports none.
 */
export async function loadAgentModule(file: string): Promise<AgentFactory> {
  let loaded: Record<string, unknown>;
  try {
    loaded = await importModule(file);
  } catch (error) {
    throw new InvalidInputError(`agent ${file}`, [`cannot be loaded: ${firstLine(error)}`]);
  }
  return agentFactory(loaded.default, `agent ${file}`);
}

/**
 * The default export (or a config entry) as a factory that checks what it builds. `source`
 * names where it came from in every refusal.
 */
export function agentFactory(exported: unknown, source: string): AgentFactory {
  if (typeof exported === 'function') {
    const factory = exported as () => unknown;
    return async () => {
      let built: unknown;
      try {
        built = await factory();
      } catch (error) {
        throw new InvalidInputError(source, [`the agent factory threw: ${firstLine(error)}`]);
      }
      return checkedAgent(built, source, 'the agent factory returned');
    };
  }
  const agent = checkedAgent(exported, source, 'the default export is');
  return () => agent;
}

function checkedAgent(value: unknown, source: string, what: string): AgentUnderTest {
  if (value === null || typeof value !== 'object')
    throw new InvalidInputError(source, [
      `${what} ${value === undefined ? 'nothing' : value === null ? 'null' : `a ${typeof value}`}; ${EXPECTED_EXPORT}`,
    ]);
  const agent = value as Partial<AgentUnderTest>;
  const missing = [
    ...(typeof agent.name === 'string' && agent.name !== '' ? [] : ['name (a non-empty string)']),
    ...(typeof agent.start === 'function' ? [] : ['start() (a function)']),
  ];
  if (missing.length > 0)
    throw new InvalidInputError(source, [
      `${what} an object without ${missing.join(' and ')}; ${EXPECTED_EXPORT}`,
    ]);
  return agent as AgentUnderTest;
}

/** A short, stable hash of a module file's bytes: the agent's version when it declares none. */
export function moduleVersion(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
