import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_WITHOUT_CHECK, installProject, pack, REPO } from '../support/packed-project.js';

/**
 * The package as a user gets it: `npm pack` (dist/ built as prepack builds it), the tarball
 * installed into a fresh project outside this repository, and that project using it — the bin, a
 * user agent and scenario in TypeScript, its own vitest test, its own TypeScript. The project's
 * files are in ./project. One pack and one install serve every case: they are the cost (about a
 * minute).
 */

// Packing builds with tsc and installing extracts ~200 packages: minutes on a busy machine.
const SETUP_TIMEOUT_MS = 600_000;
const CASE_TIMEOUT_MS = 180_000;

let dir = '';
let tarball = '';

/** The environment of a user's shell: none of this test run's vitest variables. */
const userEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'),
);

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

function inProject(command: string, args: string[], cwd = dir): Ran {
  const ran = spawnSync(command, args, { cwd, encoding: 'utf8', env: userEnv });
  return { status: ran.status ?? -1, stdout: ran.stdout, stderr: ran.stderr };
}

const faultline = (...args: string[]): Ran =>
  inProject('npx', ['--no-install', 'faultline', ...args]);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-packed-'));
  let started = Date.now();
  tarball = pack(dir);
  const packMs = Date.now() - started;
  started = Date.now();
  installProject(dir, tarball);
  cpSync(join(import.meta.dirname, 'project'), dir, { recursive: true });
  console.log(`packed in ${packMs} ms, installed in ${Date.now() - started} ms`);
}, SETUP_TIMEOUT_MS);

// Removing the installed project (~200 packages) took over 30 s on a loaded CI machine: it has
// the setup's budget, and runs without blocking the worker's event loop.
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}, SETUP_TIMEOUT_MS);

describe('the packed package', () => {
  it("is built as prepack builds it: the test's build is `npm run build` less its type check", () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // pack() builds with the build script's own command and --noCheck, then packs without
    // scripts; were prepack or build to change, the tarball here would no longer be a user's.
    expect(scripts.prepack).toBe('npm run build');
    expect(`${scripts.build} --noCheck`).toBe(`tsc ${BUILD_WITHOUT_CHECK.join(' ')}`);
  });

  it('ships built JavaScript, declarations and the bin, and no sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', join(dir, tarball)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/faultline.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/config.js',
        'dist/recordings/index.d.ts',
        'dist/bin/cli.js',
        'dist/bin/worker-main.js',
        'dist/scenarios/child/agent-process.js',
      ]),
    );
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => /^(test|bench|\.faultline)\//.test(f))).toEqual([]);
  });

  it('every export subpath resolves to built files', () => {
    const manifest = JSON.parse(
      readFileSync(join(dir, 'node_modules', 'faultline', 'package.json'), 'utf8'),
    ) as { exports: Record<string, string | { types: string; import: string }> };
    const specifiers: string[] = [];
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      // The adapters arrive with the examples; until then their subpaths point at nothing.
      if (/^\.\/(ai-sdk|langgraph)$/.test(subpath) && !exists(target.import)) continue;
      const specifier = `faultline${subpath.slice(1)}`;
      specifiers.push(specifier);
      expect(exists(target.types), `${specifier} types`).toBe(true);
    }
    // One user's Node imports each in turn (a Node start and faultline's import per subpath
    // were ten seconds of this file): each resolves through the package's exports, and one that
    // fails names itself on stderr.
    const script = specifiers
      .map((s) => `try { await import('${s}'); } catch (e) { console.error('${s}:', e); }`)
      .join('\n');
    const ran = inProject('node', ['--input-type=module', '-e', script]);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(specifiers).toEqual(
      expect.arrayContaining(['faultline', 'faultline/config', 'faultline/recordings']),
    );
  });

  it(
    'the bin runs on plain Node: tsx is not needed for faultline itself',
    () => {
      // Hidden for this case: a faultline that still needed tsx would fail to start.
      // A folder of the project without faultline.config.ts, which is TypeScript.
      const plain = join(dir, 'plain');
      mkdirSync(plain);
      const tsx = join(dir, 'node_modules', 'tsx');
      renameSync(tsx, `${tsx}.hidden`);
      try {
        const npx = ['--no-install', 'faultline'];
        const list = inProject('npx', [...npx, 'list'], plain);
        expect(list.stderr).toBe('');
        expect(list.stdout).toContain('crm/update-contact');
        const run = inProject(
          'npx',
          [...npx, 'run', 'crm/update-contact', '--workers', '2'],
          plain,
        );
        expect(run.stderr).toBe('');
        expect(run.stdout).toMatch(/run\(s\) of 1 scenario\(s\): (\d+) passed, 0 failed/);
        expect(run.status).toBe(0);
      } finally {
        renameSync(`${tsx}.hidden`, tsx);
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'loads a user scenario module and faultline.config.ts written in TypeScript',
    () => {
      const run = faultline(
        'run',
        'mine/*',
        '--scenarios',
        './my-scenario.ts',
        '--out',
        'out-mine',
      );
      expect(run.stderr).toBe('');
      // trials: 2 comes from the config file; the scenario from the user's module.
      expect(run.stdout).toContain('2 run(s) of 1 scenario(s): 2 passed, 0 failed');
      expect(run.status).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'runs a user agent module: npx faultline run --agent ./my-agent.ts',
    () => {
      const run = faultline(
        'run',
        'crm/update-contact',
        '--plan',
        'none',
        '--agent',
        './my-agent.ts',
        '--out',
        'out-agent',
      );
      expect(run.stderr).toBe('');
      // trials: 2 comes from the project's faultline.config.ts.
      expect(run.stdout).toContain('2 run(s) of 1 scenario(s): 2 passed, 0 failed');
      expect(run.status).toBe(0);
      const records = readFileSync(join(dir, 'out-agent', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { agent?: unknown; agentVersion?: unknown });
      expect(records.map((r) => [r.agent, r.agentVersion])).toEqual([
        ['my-agent', '1.0.0'],
        ['my-agent', '1.0.0'],
      ]);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a vitest test in the project runs trials through the package',
    () => {
      const run = inProject('npx', ['--no-install', 'vitest', 'run', '--reporter=verbose']);
      expect(run.stdout + run.stderr).toContain('2 passed');
      expect(run.status).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "the project's TypeScript checks its own files against the declarations, never faultline's sources",
    () => {
      // Two files that must fail, checked in the same program as the project's own: a misuse of
      // faultline's types in the project, and a declaration of faultline's that names a type
      // nowhere declared. Both are removed after the check.
      const misuse = 'probe-misuse.ts';
      const broken = join('node_modules', 'faultline', 'dist', 'probe-broken.d.ts');
      writeFileSync(
        join(dir, misuse),
        "import { defineConfig } from 'faultline/config';\n" +
          "export const wrong = defineConfig({ run: { trials: 'two' } });\n",
      );
      writeFileSync(join(dir, broken), 'export declare const broken: NoSuchType;\n');
      let ran: Ran;
      try {
        // The program `tsc --noEmit` builds (target es2022, strict, nodenext, skipLibCheck false:
        // see project/tsconfig.json), its diagnostics for the project's files and faultline's
        // declarations (see check-declarations.mjs for why not every package's).
        ran = inProject('node', [
          join(import.meta.dirname, 'check-declarations.mjs'),
          misuse,
          broken,
        ]);
      } finally {
        rmSync(join(dir, misuse));
        rmSync(join(dir, broken));
      }
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      const { files, checked, diagnostics } = JSON.parse(ran.stdout) as {
        files: string[];
        checked: string[];
        diagnostics: { file: string | null; code: number; text: string }[];
      };
      const faultlineFiles = files.filter((f) => f.includes('/node_modules/faultline/'));
      expect(faultlineFiles.length).toBeGreaterThan(0);
      expect(faultlineFiles.filter((f) => !f.endsWith('.d.ts'))).toEqual([]);
      // Every file of the project's and every declaration of faultline's was checked.
      for (const file of [
        'my-agent.ts',
        'my-scenario.ts',
        'faultline.config.ts',
        'public-types.ts',
      ])
        expect(checked).toContain(join(dir, file));
      expect(checked).toEqual(expect.arrayContaining(faultlineFiles));
      // Errors in the project's files or faultline's declarations are ours: only the two probes'.
      expect(
        diagnostics.map((d) => [d.file === null ? null : relative(dir, d.file), d.code]),
      ).toEqual([
        [misuse, 2322],
        [broken, 2304],
      ]);
    },
    CASE_TIMEOUT_MS,
  );
});

function exists(relative: string): boolean {
  try {
    readFileSync(join(dir, 'node_modules', 'faultline', relative));
    return true;
  } catch {
    return false;
  }
}
