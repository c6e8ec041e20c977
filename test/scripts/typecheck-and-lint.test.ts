import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * scripts/typecheck-and-lint.mjs, `npm test`'s `tsc --noEmit` and `eslint .` in one process, run
 * on tiny projects of its own: each check passes on one and fails on the other, with each break
 * named. Each case is one child process, as `npm test` starts it (TypeScript and ESLint load in
 * it: about 7 CPU-seconds).
 */

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(REPO, 'scripts', 'typecheck-and-lint.mjs');
const CASE_TIMEOUT_MS = 120_000;

interface Check {
  name: string;
  ok: boolean;
  output: string;
}

interface Ran {
  code: number | null;
  stdout: string;
  checks: Check[] | undefined;
}

/** Runs the script in `cwd`, with the IPC channel `npm test` gives it when `ipc` is set. */
function runScript(cwd: string, ipc: boolean): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], {
      cwd,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc' as const] : [])],
    });
    let stdout = '';
    let checks: Check[] | undefined;
    const take = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.on('message', (message: { checks: Check[] }) => {
      checks = message.checks;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, checks });
    });
  });
}

/** A project with its own tsconfig.json and eslint config, using this repository's packages. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'typecheck-and-lint-'));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        // The least the files need (a Promise): TypeScript reads and binds every lib file named
        // here in each child, and ES2023's cost each case about 0.8 CPU-seconds more.
        lib: ['ES5', 'ES2015.Promise'],
        module: 'nodenext',
        strict: true,
        types: [],
        skipLibCheck: true,
        noEmit: true,
      },
      include: ['src'],
    }),
    // The repository's shape in small: type-aware rules for TypeScript, none for JavaScript.
    'eslint.config.mjs': [
      "import tseslint from 'typescript-eslint';",
      'export default tseslint.config(',
      '  ...tseslint.configs.strictTypeChecked,',
      '  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },',
      "  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },",
      ');',
      '',
    ].join('\n'),
    'src/clean.ts': 'export const answer = (n: number): number => n * 2;\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('scripts/typecheck-and-lint.mjs', () => {
  const dirs: string[] = [];
  let typeBroken = '';
  let lintBroken = '';

  beforeAll(() => {
    // A type error and nothing the linter minds: only the type check fails.
    typeBroken = project({
      'src/typed.ts': "export const count: number = 'three';\n",
      'src/main.mjs': 'export const twice = (n) => n * 2;\n',
    });
    // Lint errors and nothing the type check minds: only the linter fails.
    lintBroken = project({
      // A floating promise: a type-aware rule, so the rules were given the program's checker.
      'src/floating.ts': 'export function start(): void {\n  Promise.resolve(1);\n}\n',
      // JavaScript, linted without type information: an unused variable.
      'src/plain.mjs': 'const unused = 1;\nexport const two = 2;\n',
      // TypeScript outside tsconfig.json: linted, and failing for not being in the program (as
      // `eslint .` fails it for not being in the project service's), never skipped.
      'outside/stray.ts': 'export const stray = 1;\n',
    });
    dirs.push(typeBroken, lintBroken);
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'fails a type error as tsc --noEmit does and passes the lint, printing both, exit 1',
    async () => {
      const ran = await runScript(typeBroken, false);
      expect(ran.stdout).toContain('── lint: ok');
      expect(ran.stdout).toContain('── typecheck: FAILED');
      expect(ran.stdout).toMatch(/src\/typed\.ts\(1,14\): error TS2322/);
      expect(ran.stdout).toContain('Found 1 error in 1 file.');
      expect(ran.code).toBe(1);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'fails every kind of lint error and passes the type check, sending both to npm test, exit 1',
    async () => {
      const ran = await runScript(lintBroken, true);
      const checks = new Map(ran.checks?.map((check) => [check.name, check]));
      expect(checks.get('typecheck')).toMatchObject({ ok: true, output: '' });
      const lint = checks.get('lint');
      expect(lint?.ok).toBe(false);
      expect(lint?.output).toContain('@typescript-eslint/no-floating-promises');
      expect(lint?.output).toMatch(/plain\.mjs[\s\S]*'unused' is assigned a value but never used/);
      expect(lint?.output).toMatch(/stray\.ts[\s\S]*not found in any of the provided program/);
      expect(ran.code).toBe(1);
    },
    CASE_TIMEOUT_MS,
  );
});
