import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULTLINE_BIN, ROOT, tempDir } from '../support/cli.js';

/**
 * What a start of the command loads (bin/cli.ts imports each command's module when it runs;
 * the model stack, fast-check and the HTTP server are imported where they are used): the built
 * command is spawned with a module hook that writes every URL it resolves, in the main thread and
 * in each `--workers` thread, and the test reads them back. An eager import of any of them, put
 * back anywhere on a command's path, fails it.
 */

const dir = tempDir('cli-start');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

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

/** The URLs a spawned command resolved, with its exit status and stderr. */
function loadedBy(
  name: string,
  args: readonly string[],
): { status: number | null; stderr: string; urls: string[] } {
  const file = join(dir, `${name}.txt`);
  const ran = spawnSync(process.execPath, ['--import', REGISTER, FAULTLINE_BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', FAULTLINE_TEST_LOADED: file },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (ran.error) throw ran.error;
  const urls = readFileSync(file, 'utf8')
    .split('\n')
    .filter((u) => u !== '');
  return { status: ran.status, stderr: ran.stderr, urls };
}

/**
 * What no start below needs: the AI SDK and its providers, fast-check, the HTTP server, the
 * client transports to a live server.
 */
const NOT_NEEDED: Readonly<Record<string, RegExp>> = {
  'the AI SDK': /\/node_modules\/ai\//,
  'its providers': /\/node_modules\/@ai-sdk\/(openai|anthropic|openai-compatible|gateway)\//,
  'fast-check': /\/node_modules\/fast-check\//,
  'the HTTP server': /\/node_modules\/(@hono\/node-server|hono)\/|\/server\/streamableHttp\.js$/,
  "a live server's clients": /\/sdk\/dist\/esm\/client\/(streamableHttp|stdio)\.js$/,
};

function expectNoneOf(urls: readonly string[]): void {
  const loaded = Object.entries(NOT_NEEDED)
    .filter(([, pattern]) => urls.some((u) => pattern.test(u)))
    .map(([what]) => what);
  expect(loaded).toEqual([]);
}

describe('a start of the command', () => {
  it('`list` loads what it lists, and neither the model stack, fast-check nor an HTTP server', () => {
    const { status, stderr, urls } = loadedBy('list', ['list', 'refunds/*']);

    expect(status, stderr).toBe(0);
    // The probe sees the command's own imports: its silence below is not a blind hook's.
    expect(urls.some((u) => /\/node_modules\/zod\//.test(u))).toBe(true);
    expect(urls.some((u) => /\/commands\/list\.(js|ts)$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/commands\/run\.(js|ts)$/.test(u))).toBe(false);
    expectNoneOf(urls);
  });

  it('`run --workers 2` of the reference agent loads none of them, in its threads either', () => {
    const out = join(dir, 'run');
    const { status, stderr, urls } = loadedBy('run', [
      'run',
      'refunds/full-refund',
      'refunds/partial-refund',
      // Two fault-free cases: enough for two threads, little else to pay for.
      '--plan',
      'none',
      '--workers',
      '2',
      '--out',
      out,
    ]);

    expect(status, stderr).toBe(0);
    expect(urls.some((u) => /\/bin\/worker-main\.(js|ts)$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/scenarios\/engine\.(js|ts)$/.test(u))).toBe(true);
    expectNoneOf(urls);
  });
});
