import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cassette } from '../../recordings/index.js';
import { expectInputError, faultlineInProcess, tempDir, type Ran } from '../support/cli.js';
import { cassetteFile, recordSession, writeRecordingFolder } from '../support/recorded-sessions.js';

let root = '';
/** The reference recorded on three library scenarios. */
let cassettes: Cassette[] = [];
let recordings = '';

beforeAll(async () => {
  root = tempDir('run-replay');
  cassettes = [
    await recordSession({ scenarioId: 'refunds/full-refund' }),
    await recordSession({ scenarioId: 'refunds/partial-refund' }),
    await recordSession({ scenarioId: 'crm/update-contact' }),
  ];
  recordings = join(root, 'recordings');
  await writeRecordingFolder(recordings, cassettes);
});

/** An --out folder holding a file of its own, to show that a refused replay leaves it as it was. */
function outFolder(): { out: string; untouched: () => void } {
  const out = tempDir('run-replay-out');
  writeFileSync(join(out, 'keep.txt'), 'previous results\n');
  return {
    out,
    untouched: () => {
      expect(readdirSync(out)).toEqual(['keep.txt']);
      expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('previous results\n');
    },
  };
}

/** A copy of the recordings folder with the full-refund cassette changed by `edit`. */
async function broken(name: string, edit: (file: string) => void): Promise<string> {
  const dir = join(root, name);
  await writeRecordingFolder(dir, cassettes);
  edit(join(dir, cassetteFile('refunds/full-refund#7')));
  return dir;
}

const rewrite = (path: string, change: (json: Record<string, unknown>) => void): void => {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(path, JSON.stringify(json));
};

/** A refusal as the spawned command would print it: one line on stderr, exit 2. */
function refused(ran: Ran, pattern: RegExp): void {
  expectInputError(ran, pattern, 'run');
}

describe('faultline run --replay: refused before anything is written', () => {
  it('refuses a cassette of a wrong format in one line, the --out folder untouched', async () => {
    const dir = await broken('wrong-format', (file) => {
      rewrite(file, (j) => (j.format = 'faultline-model-cassette'));
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: format: must be "faultline-cassette" \(got "faultline-model-cassette"\)$/,
    );
    untouched();
  });

  it('refuses a truncated cassette in one line, the --out folder untouched', async () => {
    const dir = await broken('truncated', (file) => {
      writeFileSync(file, readFileSync(file, 'utf8').slice(0, 500));
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: \(root\): not valid JSON \(.*position 500.*truncated/,
    );
    untouched();
  });

  it('refuses a cassette for tools the agent does not know, naming them', async () => {
    const dir = await broken('unknown-tools', (file) => {
      rewrite(file, (j) => {
        j.tools = (j.tools as { name: string }[]).filter(
          (t) => t.name !== 'issue_refund' && t.name !== 'void_refund',
        );
      });
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: interactions\[\d+\]\.tool: the recording calls issue_refund, which its tools do not list/,
    );
    untouched();
  });

  it('refuses a session whose recorded scenario is not a valid scenario', async () => {
    const dir = await broken('bad-scenario', (file) => {
      rewrite(file, (j) => {
        (j.session as { scenario: { tier: string } }).scenario.tier = 'enormous';
      });
    });
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', dir, '--out', out]),
      /refunds__full-refund\.7\.json: session\.scenario: tier: /,
    );
    untouched();
  });

  it('refuses a folder that is not there', async () => {
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', join(root, 'nowhere'), '--out', out]),
      /recordings folder .*nowhere: \(root\): no such folder$/,
    );
    untouched();
  });

  it.each([
    [['refunds/full-refund'], /--replay takes no scenario globs \(got refunds\/full-refund\)/],
    [['--mode', 'shadow'], /--replay cannot be combined with --mode: /],
    [['--faults', 'lost-ack'], /--replay cannot be combined with --faults: /],
    [['--plan', 'none'], /--replay cannot be combined with --plan: /],
    [['--seed', '3'], /--replay cannot be combined with --seed: /],
    [['--scenarios', 'x.json'], /--replay cannot be combined with --scenarios: /],
  ])('refuses --replay with %j in one line', async (extra, pattern) => {
    const { out, untouched } = outFolder();
    refused(
      await faultlineInProcess(['run', '--replay', recordings, ...extra, '--out', out]),
      pattern,
    );
    untouched();
  });
});
