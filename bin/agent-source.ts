import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentUnderTest } from '../scenarios/agent.js';
import {
  AGENT_MODULE_EXTENSIONS,
  agentFactory,
  loadAgentModule,
  moduleVersion,
  type AgentFactory,
} from '../scenarios/agent-module.js';
import type { ReferenceAgentOptions } from '../scenarios/agents/reference.js';
import { ZOO, zooAgent } from '../scenarios/agents/zoo.js';
import { loadConfig } from './config.js';
import { UsageError } from './usage-error.js';

/**
 * Where the agent under test comes from, as plain data: a worker thread (or a child process)
 * rebuilds the agent from it in its own process, never from a function handed across.
 */
export type AgentSource =
  | { readonly kind: 'zoo'; readonly name: string }
  /** A module file (absolute path) whose default export is an agent or a factory. */
  | { readonly kind: 'module'; readonly module: string }
  /** An agent written inline in the `agents` map of a config file (absolute path). */
  | { readonly kind: 'config'; readonly config: string; readonly entry: string };

/** The agent under test, loaded and checked: who it is, and a fresh one per trial. */
export interface ResolvedAgent {
  readonly source: AgentSource;
  /** The agent's own `name`. */
  readonly name: string;
  /** The agent's own `version`, else a hash of its module's bytes (zoo: faultline's version). */
  readonly version: string;
  /** The module the agent comes from (absolute), when it comes from one of its own. */
  readonly module?: string;
  /** A fresh agent: a factory is called each time. `options` reach the zoo's reference agents. */
  create(options?: ReferenceAgentOptions): AgentUnderTest | Promise<AgentUnderTest>;
}

/** The `agents` of a loaded config and the file they came from. */
export interface ConfiguredAgents {
  readonly file: string | undefined;
  readonly agents: Readonly<Record<string, unknown>>;
}

/** Whether `--agent` names a module file rather than an agent: a path, or a module's extension. */
export function isAgentPath(spec: string): boolean {
  return (
    spec.startsWith('./') ||
    spec.startsWith('../') ||
    isAbsolute(spec) ||
    AGENT_MODULE_EXTENSIONS.some((ext) => spec.endsWith(ext))
  );
}

/**
 * What `--agent SPEC` (or `run.agent` in the config) means: a module path, a name the config's
 * `agents` map gives, or an agent of the zoo. `flag` is how the value is blamed when wrong.
 */
export function chooseAgent(
  spec: string,
  configured: ConfiguredAgents = { file: undefined, agents: {} },
  flag = '--agent',
): AgentSource {
  if (isAgentPath(spec)) return { kind: 'module', module: moduleFile(resolve(spec), flag, spec) };
  const entry = configured.agents[spec];
  if (entry !== undefined && configured.file !== undefined) {
    if (typeof entry === 'string') {
      const module = resolve(dirname(configured.file), entry);
      return {
        kind: 'module',
        module: moduleFile(module, `config ${configured.file}: agents.${spec}`, entry),
      };
    }
    return { kind: 'config', config: configured.file, entry: spec };
  }
  if (zooAgent(spec)) return { kind: 'zoo', name: spec };
  const mine = Object.keys(configured.agents);
  throw new UsageError(
    `${flag}: unknown agent "${spec}" (agents: ${ZOO.map((a) => a.name).join(', ')}${mine.length > 0 ? `; configured: ${mine.join(', ')}` : ''}; or a module path such as ./my-agent.ts)`,
  );
}

function moduleFile(file: string, flag: string, given: string): string {
  if (!existsSync(file)) throw new UsageError(`${flag} ${given}: no such file (${file})`);
  if (!statSync(file).isFile())
    throw new UsageError(`${flag} ${given}: is a folder, expected a module file`);
  return file;
}

const resolved = new Map<string, Promise<ResolvedAgent>>();

/**
 * Loads and checks the agent a source names, once per process: the module is imported, and a
 * factory is called once to check what it builds (a factory that throws, or builds no agent,
 * is refused here, before anything is written). Throws InvalidInputError naming the file.
 */
export function resolveAgent(source: AgentSource): Promise<ResolvedAgent> {
  const key = JSON.stringify(source);
  let found = resolved.get(key);
  if (!found) {
    found = load(source);
    // A refusal is not kept: the next caller hears it again, not a stale promise.
    found.catch(() => resolved.delete(key));
    resolved.set(key, found);
  }
  return found;
}

async function load(source: AgentSource): Promise<ResolvedAgent> {
  switch (source.kind) {
    case 'zoo': {
      const entry = zooAgent(source.name);
      if (!entry) throw new UsageError(`unknown agent "${source.name}"`);
      return {
        source,
        name: entry.name,
        version: FAULTLINE_VERSION,
        create: (options) => entry.create(options),
      };
    }
    case 'module': {
      const factory = await loadAgentModule(source.module);
      return userAgent(source, factory, source.module, source.module);
    }
    case 'config': {
      const config = await loadConfig(source.config);
      const exported = config.agents[source.entry];
      if (exported === undefined || typeof exported === 'string')
        throw new UsageError(`config ${source.config}: agents.${source.entry}: no inline agent`);
      const factory = agentFactory(exported, `config ${source.config}: agents.${source.entry}`);
      return userAgent(source, factory, source.config, undefined);
    }
  }
}

async function userAgent(
  source: AgentSource,
  factory: AgentFactory,
  file: string,
  module: string | undefined,
): Promise<ResolvedAgent> {
  const first = await factory();
  return {
    source,
    name: first.name,
    version: first.version ?? moduleVersion(file),
    ...(module === undefined ? {} : { module }),
    create: factory,
  };
}

/**
 * How a replay command names the agent: the zoo's or config's name, or the module's path from
 * the working folder (the command runs from there).
 */
export function agentArgument(source: AgentSource): string {
  switch (source.kind) {
    case 'zoo':
      return source.name;
    case 'config':
      return source.entry;
    case 'module': {
      const path = relative(process.cwd(), source.module);
      return path.startsWith('..') || isAbsolute(path) ? path : `.${sep}${path}`;
    }
  }
}

/** faultline's own version: the version of the zoo's agents. */
export const FAULTLINE_VERSION = packageVersion();

function packageVersion(): string {
  // Walk up from this file: the same code runs from the sources and from a build folder.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'faultline' && typeof pkg.version === 'string') return pkg.version;
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}
