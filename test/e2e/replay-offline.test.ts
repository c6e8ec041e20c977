import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readResults } from '../../reports/results.js';
import { faultline, ROOT, tempDir } from '../support/cli.js';
import { expectNoneNotNeeded, loadProbe } from '../support/load-probe.js';
import { recordSession, writeRecordingFolder } from '../support/recorded-sessions.js';

/** Preloaded into the command: every socket connect, name lookup and fetch throws (and says so). */
const NO_NETWORK = `--import=${pathToFileURL(join(ROOT, 'test/support/no-network.js')).href}`;
const OFFLINE = { NODE_OPTIONS: NO_NETWORK };

let recordings = '';
const probe = loadProbe('run-replay-workers');

beforeAll(async () => {
  recordings = join(tempDir('replay-offline'), 'recordings');
  await writeRecordingFolder(recordings, [
    await recordSession({ scenarioId: 'refunds/full-refund' }),
    // A lost acknowledgement: the refund's reply never came, and is recorded as unanswered.
    await recordSession({ scenarioId: 'refunds/partial-refund', plan: 'refund-ack-lost' }),
    await recordSession({ scenarioId: 'crm/update-contact' }),
  ]);
});

describe('a replay never reaches the network', () => {
  it('the preload does make the network unavailable', () => {
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "fetch('http://127.0.0.1:9').then(() => process.exit(0), (e) => { console.error(e.message); process.exit(3); })",
      ],
      { env: { ...process.env, ...OFFLINE }, encoding: 'utf8' },
    );
    expect(probe.status).toBe(3);
    expect(probe.stderr).toMatch(/no-network: fetch attempted/);
  });

  it('faultline run --replay, in worker threads, passes with the network unavailable', () => {
    const out = tempDir('replay-offline-out');
    const ran = faultline(['run', '--replay', recordings, '--workers', '2', '--out', out], {
      env: { ...OFFLINE, ...probe.env },
      nodeArgs: probe.nodeArgs,
    });
    expect(ran.stderr).not.toMatch(/no-network/);
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const { results } = readResults(out);
    expect(results.map((r) => [r.scenarioId, r.mode, r.pass])).toEqual([
      ['refunds/full-refund', 'replay', true],
      ['refunds/partial-refund', 'replay', true],
      ['crm/update-contact', 'replay', true],
    ]);
  });

  // This spawn carries the module probe (load-probe.ts) for worker threads: the whole default
  // suite's spawn in run.test starts none on two cores (see autoWorkers).
  it('its worker threads load neither the model stack, fast-check nor an HTTP server', () => {
    const urls = probe.urls();
    // The hook did see the threads: its silence below is not a blind hook's.
    expect(urls.some((u) => /\/bin\/worker-main\.(js|ts)$/.test(u))).toBe(true);
    expectNoneNotNeeded(urls);
  });
});
