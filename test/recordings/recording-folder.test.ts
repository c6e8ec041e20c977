import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cassette } from '../../recordings/index.js';
import { readRecordingFolder } from '../../recordings/recording-folder.js';
import { InvalidInputError } from '../../runtime/errors.js';
import { tempDir } from '../support/cli.js';
import { cassetteFile, recordSession, writeRecordingFolder } from '../support/recorded-sessions.js';

let cassette: Cassette;
let dirs = 0;

beforeAll(async () => {
  cassette = await recordSession({ scenarioId: 'refunds/full-refund' });
});

/** A fresh folder holding the recorded session, then changed by `edit`. */
async function folder(
  edit: (dir: string, file: string) => void = () => undefined,
): Promise<string> {
  const dir = join(tempDir('recording-folder'), `set-${dirs++}`);
  await writeRecordingFolder(dir, [cassette]);
  edit(dir, join(dir, cassetteFile(cassette.session?.runId ?? '')));
  return dir;
}

const rewrite = (path: string, change: (json: Record<string, unknown>) => void): void => {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(path, JSON.stringify(json));
};

/** The one-line complaint reading `dir` fails with. */
async function complaint(dir: string): Promise<string> {
  const error = await readRecordingFolder(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  const message = (error as Error).message;
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

describe('readRecordingFolder', () => {
  it('reads every session the index names, with its cassette and absolute path', async () => {
    const dir = await folder();
    const read = await readRecordingFolder(dir);
    expect(read.sessions).toHaveLength(1);
    const [only] = read.sessions;
    expect(only?.session.runId).toBe('refunds/full-refund#7');
    expect(only?.file).toBe(join(dir, 'refunds__full-refund.7.json'));
    expect(only?.cassette.interactions.length).toBeGreaterThan(3);
  });

  it('refuses an index of another format, naming the file and the field', async () => {
    const dir = await folder((d) => {
      rewrite(join(d, 'index.json'), (j) => (j.format = 'something-else'));
    });
    expect(await complaint(dir)).toMatch(
      /index\.json: format: must be "faultline-recordings" \(got "something-else"\)$/,
    );
  });

  it('refuses a cassette of an unknown version', async () => {
    const dir = await folder((_d, file) => {
      rewrite(file, (j) => (j.version = 9));
    });
    expect(await complaint(dir)).toMatch(
      /cassette .*refunds__full-refund\.7\.json: version: must be 1 or 2.*\(got 9\)$/,
    );
  });

  it('refuses a truncated cassette, saying where the JSON stops', async () => {
    const dir = await folder((_d, file) => {
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.slice(0, 200));
    });
    expect(await complaint(dir)).toMatch(
      /cassette .*refunds__full-refund\.7\.json: \(root\): not valid JSON \(.*position 200.*truncated/,
    );
  });

  it('refuses invalid JSON in the index with its position', async () => {
    const dir = await folder((d) => {
      writeFileSync(join(d, 'index.json'), '{"format" "x"}');
    });
    expect(await complaint(dir)).toMatch(/index\.json: \(root\): not valid JSON \(.*position 10/);
  });

  it('refuses a cassette without the recorded session', async () => {
    const dir = await folder((_d, file) => {
      rewrite(file, (j) => delete j.session);
    });
    expect(await complaint(dir)).toMatch(/refunds__full-refund\.7\.json: session: missing/);
  });

  it('refuses an index naming a file that is not there', async () => {
    const dir = await folder((_d, file) => {
      rmSync(file);
    });
    expect(await complaint(dir)).toMatch(
      /index\.json: sessions\[0\]\.file: refunds__full-refund\.7\.json does not exist/,
    );
  });

  it('refuses a folder without an index', async () => {
    const dir = await folder((d) => {
      rmSync(join(d, 'index.json'));
    });
    expect(await complaint(dir)).toMatch(/index\.json: missing/);
  });

  it('refuses two sessions with one run id', async () => {
    const dir = await folder((d) => {
      rewrite(join(d, 'index.json'), (j) => {
        const sessions = j.sessions as unknown[];
        j.sessions = [sessions[0], sessions[0]];
      });
    });
    expect(await complaint(dir)).toMatch(
      /sessions\[1\]\.runId: "refunds\/full-refund#7" is also the run id of sessions\[0\]/,
    );
  });

  it('refuses a recording whose calls name tools its tools/list lacks, naming them', async () => {
    const dir = await folder((_d, file) => {
      rewrite(file, (j) => {
        j.tools = (j.tools as { name: string }[]).filter((t) => t.name !== 'issue_refund');
      });
    });
    expect(await complaint(dir)).toMatch(
      /interactions\[\d+\]\.tool: the recording calls issue_refund, which its tools do not list \(tools: get_order,/,
    );
  });

  it('refuses a recording for tools the agent does not know: its contract names tools the recording lacks', async () => {
    const dir = await folder((_d, file) => {
      rewrite(file, (j) => {
        j.tools = (j.tools as { name: string }[]).filter((t) => t.name !== 'void_refund');
      });
    });
    expect(await complaint(dir)).toMatch(
      /session\.scenario: the agent's blueprint and contract use void_refund, which the recording's tools do not offer/,
    );
  });
});
