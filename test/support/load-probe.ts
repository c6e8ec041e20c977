import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from './cli.js';

/**
 * What a start of the command loads (bin/cli.ts imports each command's module when it runs; the
 * model stack, fast-check and the HTTP server are imported where they are used). A spawn the
 * suite makes anyway carries a module hook that writes every URL the command resolves, in the
 * main thread and in each `--workers` thread (they inherit the `--import`), and its test reads
 * them back: an eager import of any of them, put back anywhere on that command's path, fails it.
 * The hook costs the spawn about two CPU-seconds on the whole suite's run, against about seven
 * for a spawn of its own.
 */

/** The hook: appends each resolved URL, one a line, to the file FAULTLINE_TEST_LOADED names. */
const HOOKS = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.FAULTLINE_TEST_LOADED, resolved.url + '\\n');
  return resolved;
}`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`,
)}`;

/** A probe for one spawn: the Node arguments and environment that load the hook, and its list. */
export interface LoadProbe {
  /** Before the script on the command line. */
  nodeArgs: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Every URL the spawned command resolved, once it has ended. */
  urls: () => string[];
}

export function loadProbe(name: string): LoadProbe {
  const file = join(tempDir('load-probe'), `${name}.txt`);
  return {
    nodeArgs: ['--import', REGISTER],
    env: { FAULTLINE_TEST_LOADED: file },
    urls: () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((u) => u !== '')
        : [],
  };
}

/**
 * What no start of `list`, or of `run` of the reference agent, needs: the AI SDK and its
 * providers, fast-check, the HTTP server, the client transports to a live server.
 */
const NOT_NEEDED: Readonly<Record<string, RegExp>> = {
  'the AI SDK': /\/node_modules\/ai\//,
  'its providers': /\/node_modules\/@ai-sdk\/(openai|anthropic|openai-compatible|gateway)\//,
  'fast-check': /\/node_modules\/fast-check\//,
  'the HTTP server': /\/node_modules\/(@hono\/node-server|hono)\/|\/server\/streamableHttp\.js$/,
  "a live server's clients": /\/sdk\/dist\/esm\/client\/(streamableHttp|stdio)\.js$/,
};

/** Fails naming each of {@link NOT_NEEDED} that `urls` holds. */
export function expectNoneNotNeeded(urls: readonly string[]): void {
  const loaded = Object.entries(NOT_NEEDED)
    .filter(([, pattern]) => urls.some((u) => pattern.test(u)))
    .map(([what]) => what);
  expect(loaded).toEqual([]);
}
