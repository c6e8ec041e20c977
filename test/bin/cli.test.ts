import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../reports/results.js';
import { sqliteBindingProblem } from '../../bin/cli.js';
import {
  FAULTLINE_BIN,
  expectInputError,
  faultline,
  faultlineInProcess,
  ROOT,
  tempDir,
} from '../support/cli.js';

/** A fast, passing run: one scenario, no faults. */
const ONE = ['run', 'refunds/full-refund', '--plan', 'none'];

/** Characters a terminal acts on: ESC and the other C0/C1 controls, DEL, bidi overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A folder holding what `make` puts there, and nothing else. */
function folder(make: (dir: string) => void = () => undefined): string {
  const dir = tempDir('cli-errors');
  make(dir);
  return dir;
}

/** A config file in its own folder; returns its path. */
function config(body: string): string {
  const file = join(folder(), 'faultline.config.mjs');
  writeFileSync(file, `export default ${body};\n`);
  return file;
}

describe('output folders that cannot be written: one line, no EISDIR/ENOTDIR trace', () => {
  it('run: results.jsonl is a folder', async () => {
    const out = folder((d) => {
      mkdirSync(join(d, 'results.jsonl'));
    });
    expectInputError(
      await faultlineInProcess([...ONE, '--out', out]),
      new RegExp(
        `^faultline run: --out ${out}: ${out}/results\\.jsonl is a folder, expected a file$`,
      ),
    );
    expect(readdirSync(out)).toEqual(['results.jsonl']);
  });

  it('run: --out is a file', async () => {
    const file = join(folder(), 'set');
    writeFileSync(file, 'not a folder');
    expectInputError(
      await faultlineInProcess([...ONE, '--out', file]),
      new RegExp(`^faultline run: --out ${file}: is a file, expected a folder$`),
    );
  });

  it('run: a part of --out is a file', async () => {
    const file = join(folder(), 'set');
    writeFileSync(file, 'not a folder');
    expectInputError(
      await faultlineInProcess([...ONE, '--out', join(file, 'inside')]),
      new RegExp(`^faultline run: --out ${file}/inside: ${file} is a file, expected a folder$`),
    );
  });

  it('run: --out "" (it would write into the current folder)', async () => {
    const cwd = folder();
    expectInputError(
      await faultlineInProcess([...ONE, '--out', ''], { cwd }),
      /^faultline run: --out must name a folder \(got ""\); an empty name would write into the current folder$/,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('merge: --out is a file', async () => {
    const set = folder();
    expect((await faultlineInProcess([...ONE, '--out', set])).status).toBe(0);
    const file = join(folder(), 'merged');
    writeFileSync(file, 'not a folder');
    expectInputError(
      await faultlineInProcess(['merge', set, '--out', file]),
      new RegExp(`^faultline merge: --out ${file}: is a file, expected a folder$`),
    );
  });

  it('explore: --out is a file', async () => {
    const file = join(folder(), 'stores');
    writeFileSync(file, 'not a folder');
    expectInputError(
      await faultlineInProcess(['explore', 'refunds/full-refund', '--runs', '1', '--out', file]),
      new RegExp(`^faultline explore: --out ${file}: is a file, expected a folder$`),
    );
  });

  it('matrix: --out is a file', async () => {
    const file = join(folder(), 'stores');
    writeFileSync(file, 'not a folder');
    expectInputError(
      await faultlineInProcess(['matrix', 'refunds/full-refund', '--out', file]),
      new RegExp(`^faultline matrix: --out ${file}: is a file, expected a folder$`),
    );
  });
});

describe('better-sqlite3 without a usable native binding: one line, exit 2, results kept', () => {
  /**
   * A preload that makes better-sqlite3's `require('bindings')` fail as the `bindings` package
   * does where better-sqlite3's install script never ran (`npm install --ignore-scripts`).
   */
  const NO_BINDING = `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (request === 'bindings' && parent && parent.filename.includes('better-sqlite3'))
    return () => {
      throw new Error('Could not locate the bindings file. Tried:\\n → ' + parent.path + '/../build/Release/better_sqlite3.node');
    };
  return load.call(this, request, parent, ...rest);
};
`;

  it('says to rebuild it, and leaves the previous set as it was', async () => {
    const out = join(folder(), 'out');
    expect((await faultlineInProcess([...ONE, '--out', out])).status).toBe(0);
    const preload = join(folder(), 'no-binding.cjs');
    writeFileSync(preload, NO_BINDING);
    const ran = faultline(['run', 'refunds/*', '--out', out], { nodeArgs: ['--require', preload] });
    expectInputError(
      ran,
      /has no native binding \(its install script did not run\): run `npm rebuild better-sqlite3`/,
      'run',
    );
    expect(readResults(out).results.map((r) => r.scenarioId)).toEqual(['refunds/full-refund']);
  });

  it('tells a binding built for another Node.js, and nothing else', () => {
    const foreign = Object.assign(
      new Error(
        "The module '/p/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    expect(sqliteBindingProblem(foreign)).toMatch(
      /^better-sqlite3, faultline's store, cannot load its native binding \(The module .*better_sqlite3\.node'\): run `npm rebuild better-sqlite3`/,
    );
    expect(
      sqliteBindingProblem(new Error('Could not locate the bindings file. Tried: x.node')),
    ).toBe(undefined);
    expect(sqliteBindingProblem(Object.assign(new Error('x'), { code: 'ERR_DLOPEN_FAILED' }))).toBe(
      undefined,
    );
    expect(sqliteBindingProblem('better_sqlite3.node')).toBe(undefined);
    // A run in a worker thread: the thread's message, quoted.
    expect(
      sqliteBindingProblem(
        new Error(
          'run 0 failed in a worker: Could not locate the bindings file. Tried:\n → /p/better_sqlite3.node',
        ),
      ),
    ).toMatch(/has no native binding \(its install script did not run\)/);
  });
});

describe('result sets that cannot be read: one line', () => {
  it('show: results.jsonl is a folder', async () => {
    const out = folder((d) => {
      mkdirSync(join(d, 'results.jsonl'));
    });
    expectInputError(
      await faultlineInProcess(['show', 'x', '--out', out]),
      new RegExp(`^faultline show: ${out}/results\\.jsonl: is a folder, expected a results file$`),
    );
  });

  it('promote: results.jsonl is a folder', async () => {
    const out = folder((d) => {
      mkdirSync(join(d, 'results.jsonl'));
    });
    expectInputError(
      await faultlineInProcess(['promote', out, '--to', 'supervised']),
      new RegExp(
        `^faultline promote: ${out}/results\\.jsonl: is a folder, expected a results file$`,
      ),
    );
  });

  it('show: --out "" (it would read the current folder)', async () => {
    expectInputError(
      await faultlineInProcess(['show', 'x', '--out', '']),
      /^faultline show: --out must name a result set folder \(got ""\)$/,
    );
  });

  it('promote: an empty result set', async () => {
    const out = folder((d) => {
      writeFileSync(join(d, 'results.jsonl'), '');
    });
    expectInputError(
      await faultlineInProcess(['promote', out, '--to', 'supervised']),
      new RegExp(
        `^faultline promote: ${out}/results\\.jsonl: no runs in this result set; nothing to judge$`,
      ),
    );
  });

  it('merge: an empty result set', async () => {
    const set = folder();
    expect((await faultlineInProcess([...ONE, '--out', set])).status).toBe(0);
    const empty = folder((d) => {
      writeFileSync(join(d, 'results.jsonl'), '');
    });
    const out = join(folder(), 'merged');
    expectInputError(
      await faultlineInProcess(['merge', set, empty, '--out', out]),
      new RegExp(`^faultline merge: ${empty}: no runs in this result set; nothing to merge`),
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('numbers: negative ones are values, refused by name; large ones are bounded', () => {
  it('run --seed -1', async () => {
    expectInputError(
      await faultlineInProcess([...ONE, '--seed', '-1', '--out', folder()]),
      /^faultline run: --seed must be a whole number ≥ 0 \(got "-1"\)$/,
    );
  });

  it('run --shard -1/2', async () => {
    expectInputError(
      await faultlineInProcess([...ONE, '--shard', '-1/2', '--out', folder()]),
      /^faultline run: --shard must be I\/N with 1 ≤ I ≤ N \(got "-1\/2"\)$/,
    );
  });

  it('compare --k -2', async () => {
    expectInputError(
      await faultlineInProcess(['compare', folder(), folder(), '--k', '-2']),
      /^faultline compare: --k must be a whole number ≥ 1 \(got "-2"\)$/,
    );
  });

  it('explore --seed -5 is a seed like any other (fast-check seeds are signed)', async () => {
    const ran = await faultlineInProcess([
      'explore',
      'refunds/full-refund',
      '--seed',
      '-5',
      '--runs',
      '1',
      '--out',
      folder(),
    ]);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('seed -5');
  });

  // In process: the bound is the argument parser's. What the binary adds (main's status as the
  // exit code, a process that ends when its run does) the spawns made for it prove: exit 0 in
  // run.test.ts (threads) and test/package (serial runs), exit 2 in folder-lock.test.ts.
  it('run --seed above 2^53 - 1 is refused (it would be rounded, and its replay name another seed)', async () => {
    const out = folder();
    expectInputError(
      await faultlineInProcess([...ONE, '--seed', '9007199254740993', '--out', out]),
      /^faultline run: --seed must be at most 9007199254740991 \(2\^53 - 1\): a larger number loses digits, and the replay command would name another seed \(got "9007199254740993"\)$/,
    );
    expect(readdirSync(out)).toEqual([]);
    // The largest safe seed is kept exactly, replay command included.
    const max = await faultlineInProcess([...ONE, '--seed', '9007199254740991', '--out', out]);
    expect(max.status, max.stderr).toBe(0);
    expect(readResults(out).results.map((r) => [r.seed, r.replay])).toEqual([
      [
        9007199254740991,
        'npx faultline run refunds/full-refund --plan none --seed 9007199254740991',
      ],
    ]);
  }, 120_000);

  it('run --trials above the maximum is refused at once, saying why', async () => {
    const out = folder();
    expectInputError(
      await faultlineInProcess(['run', '--trials', '1000000000', '--out', out], {
        timeout: 30_000,
      }),
      /^faultline run: --trials must be at most 100: every trial reruns every case/,
    );
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('a --regressions folder named on purpose must exist', () => {
  it('run --regressions with a typo', async () => {
    const out = folder();
    const typo = join(folder(), 'regresions');
    expectInputError(
      await faultlineInProcess([...ONE, '--regressions', typo, '--out', out]),
      new RegExp(`^faultline run: --regressions: ${typo}: no such folder`),
    );
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('a bad file is quoted, never echoed raw: escapes and control bytes are shown escaped', () => {
  it('run --scenarios: a JSON file with escape sequences and C1/bidi controls', async () => {
    const file = join(folder(), 'bad.json');
    writeFileSync(file, 'garbage \u001b[2J\u009b\u202e bytes');
    const ran = await faultlineInProcess([...ONE, '--scenarios', file, '--out', folder()]);
    expectInputError(ran, /^faultline run: Invalid scenario file /);
    expect(ran.stderr).not.toMatch(RAW);
    expect(ran.stderr).toContain('\\u001b[2J\\u009b\\u202e');
  });

  it('run: a regression file with escape sequences', async () => {
    const dir = folder((d) => {
      writeFileSync(join(d, 'bad.json'), 'zz\u001b]0;owned\u0007zz');
    });
    const ran = await faultlineInProcess([...ONE, '--regressions', dir, '--out', folder()]);
    expectInputError(ran, /^faultline run: Invalid regression file /);
    expect(ran.stderr).not.toMatch(RAW);
    expect(ran.stderr).toContain('\\u001b]0;owned\\u0007');
  });
});

describe('a value from the config file is blamed on the file and its field', () => {
  it.each([
    ['run.agent', '{ run: { agent: "nobody" } }', 'unknown agent "nobody"'],
    ['run.faults', '{ run: { faults: "bogus" } }', 'unknown fault kind "bogus"'],
    ['run.reporters', '{ run: { reporters: ["nope"] } }', 'unknown reporter "nope"'],
    ['run.regressions', '{ run: { regressions: "no-such-folder" } }', 'no-such-folder: no such'],
  ])('%s', async (field, body, what) => {
    const file = config(body);
    const out = folder();
    const ran = await faultlineInProcess([...ONE, '--config', file, '--out', out]);
    expectInputError(ran, /^faultline run: config /);
    expect(ran.stderr).toContain(`config ${file}: ${field}: ${what}`);
    expect(readdirSync(out)).toEqual([]);
  });

  it('run.out that is a file', async () => {
    const file = config('{ run: { out: "." } }');
    writeFileSync(join(file, '..', 'set'), '');
    const named = config(`{ run: { out: ${JSON.stringify(join(file, '..', 'set'))} } }`);
    expectInputError(
      await faultlineInProcess([...ONE, '--config', named]),
      new RegExp(
        `^faultline run: config ${named}: run\\.out .*/set: is a file, expected a folder$`,
      ),
    );
  });

  it('run.trials above the maximum, and run.out empty', async () => {
    const file = config('{ run: { trials: 1000, out: "" } }');
    const ran = await faultlineInProcess([...ONE, '--config', file]);
    expectInputError(ran, new RegExp(`^faultline run: Invalid config ${file}: run\\.trials: `));
    expect(ran.stderr).toContain('run.out: ');
  });
});

describe('a reader that stops early (| head)', () => {
  it('ends the command quietly: no EPIPE trace, exit 0', () => {
    const ran = spawnSync(
      'bash',
      [
        '-c',
        `set -o pipefail; "${process.execPath}" "${FAULTLINE_BIN}" list 'tau-retail/*' | head -1`,
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 },
    );

    expect(ran.stdout).toBe('Scenarios (115 in 1 world)\n');
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
  }, 60_000);
});
