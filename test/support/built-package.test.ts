import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { workerEntry } from '../../bin/workers.js';
import { BUILT_DIST_ENV } from '../../scenarios/built-dist.js';
import { builtPackage, TEST_BUILT_PACKAGE } from './built-package.js';
import { FAULTLINE_BIN, ROOT } from './cli.js';
import { expectNoneNotNeeded, loadProbe } from './load-probe.js';

describe('the test run spawns the sources built once, laid out as the installed package', () => {
  const dir = builtPackage();

  it('is made by the global setup, outside the checkout', () => {
    expect(process.env[TEST_BUILT_PACKAGE], 'the global setup made no package').toBeDefined();
    expect(dir).not.toBe(ROOT);
    expect(FAULTLINE_BIN).toBe(join(dir, 'bin', 'faultline.js'));
    expect(process.env[BUILT_DIST_ENV]).toBe(join(dir, 'dist'));
  });

  it("starts --workers threads from it when the job loads nothing of the user's", () => {
    const explore = { kind: 'explore', outDir: dir } as const;
    expect(
      workerEntry({ ...explore, agent: { kind: 'zoo', name: 'reference' }, scenarioFiles: [] })
        .href,
    ).toBe(pathToFileURL(join(dir, 'dist', 'bin', 'worker-main.js')).href);
    // An agent module or a scenario file imports the sources: its threads keep them.
    const sources = new URL('../../bin/worker.js', import.meta.url).href;
    expect(
      workerEntry({
        ...explore,
        agent: { kind: 'module', module: '/x/agent.ts' },
        scenarioFiles: [],
      }).href,
    ).toBe(sources);
    expect(
      workerEntry({
        ...explore,
        agent: { kind: 'zoo', name: 'reference' },
        scenarioFiles: ['/x/s.ts'],
      }).href,
    ).toBe(sources);
  });

  it('holds JavaScript only: nothing in it can go through tsx', () => {
    const files = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' });
    expect(files).toContain(join('bin', 'cli.js'));
    expect(files).toContain(join('scenarios', 'child', 'agent-process.js'));
    expect(files.filter((f) => /\.[cm]?tsx?$/.test(f))).toEqual([]);
    expect(existsSync(join(dir, 'bin', 'cli.ts'))).toBe(false);
  });

  it('is built from the sources as they are', () => {
    // A line of the source's code, found in its build: not the checkout's own (maybe stale) dist/.
    const source = readFileSync(join(ROOT, 'scenarios/child/child-agent-host.ts'), 'utf8');
    const built = readFileSync(join(dir, 'dist/scenarios/child/child-agent-host.js'), 'utf8');
    expect(source).toContain('function childEntry(');
    expect(built).toContain('function childEntry(');
  });

  // With the module probe (load-probe.ts): the one spawn of `list`, and what its start loads.
  it('runs as the command, and `list` loads what it lists and no model stack, fast-check or HTTP server', () => {
    const probe = loadProbe('list');
    const ran = spawnSync(
      process.execPath,
      [...probe.nodeArgs, FAULTLINE_BIN, 'list', 'refunds/*'],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1', ...probe.env },
        encoding: 'utf8',
      },
    );
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('refunds/partial-refund');
    expect(ran.status).toBe(0);
    const urls = probe.urls();
    // The probe sees the command's own imports: its silence below is not a blind hook's.
    expect(urls.some((u) => /\/node_modules\/zod\//.test(u))).toBe(true);
    expect(urls.some((u) => /\/commands\/list\.(js|ts)$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/commands\/run\.(js|ts)$/.test(u))).toBe(false);
    expectNoneNotNeeded(urls);
  }, 60_000);
});
