import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TypeScript from 'typescript';
import { BUILT_DIST_ENV } from '../../scenarios/built-dist.js';
import { TEST_TEMP_ROOT } from './temp-root.js';

/** The variable naming the test run's built package once the global setup has made it. */
export const TEST_BUILT_PACKAGE = 'FAULTLINE_TEST_BUILT_PACKAGE' as const;

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** What the package ships or needs beside dist/ and bin/faultline.js, linked from the checkout. */
const LINKED = ['prompts', 'scenarios/worlds/tau-retail/data', 'node_modules'] as const;

/**
 * Builds the checkout's sources into `out`, laid out as the installed package is: `dist/` holding
 * the JavaScript of the files `tsc -p tsconfig.build.json` builds, at the paths it writes them to
 * (no declarations, no source maps), `bin/faultline.js`, `package.json`, and links to the folders
 * the package ships (`prompts`, the tau-retail data) and to `node_modules`. With no `bin/cli.ts`
 * beside it, its `bin/faultline.js` runs `dist/` on plain Node, as an installed package does.
 *
 * Why: a command spawned from the checkout runs the TypeScript sources through tsx, about
 * 3.5 CPU-seconds per start against about 0.65 for the built JavaScript; the suite spawns a few
 * dozen commands and child-process agents. Each file is transformed alone, by Oxc through vite
 * (already loaded in vitest's process), which the sources allow (`isolatedModules` and
 * `verbatimModuleSyntax`: no file's JavaScript depends on another's types): about 0.2
 * CPU-seconds for the whole build, where TypeScript's own unchecked emit took 2.6–4.7. The
 * package test still packs what `tsc` builds. The build is of the sources as they are when the
 * run starts; the checkout's own `dist/` is never used: it may be stale, and the package test
 * rebuilds it.
 *
 * @example
 * ```ts
 * await buildPackage(join(tmpdir(), 'faultline-built'));
 * ```
 */
export async function buildPackage(out: string): Promise<void> {
  // Loaded here, not at the top: every test file that spawns the command imports this module.
  // Required natively: through vitest's module runner it cost more.
  const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.build.json could not be read');
  const { rootDir, target } = config.options;
  if (rootDir === undefined || target === undefined)
    throw new Error('tsconfig.build.json names no rootDir or target');
  const { transformWithOxc } = await import('vite');
  const sources = config.fileNames.filter((file) => !file.endsWith('.d.ts'));
  await Promise.all(
    sources.map(async (file) => {
      // Oxc throws on a syntax error, naming the file and the place.
      const built = await transformWithOxc(readFileSync(file, 'utf8'), file, {
        lang: 'ts',
        target: ts.ScriptTarget[target].toLowerCase(),
        sourcemap: false,
      });
      const to = join(out, 'dist', relative(rootDir, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, built.code);
    }),
  );
  mkdirSync(join(out, 'bin'), { recursive: true });
  copyFileSync(join(REPO, 'bin', 'faultline.js'), join(out, 'bin', 'faultline.js'));
  copyFileSync(join(REPO, 'package.json'), join(out, 'package.json'));
  for (const path of LINKED) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    symlinkSync(join(REPO, path), join(out, path), 'dir');
  }
}

/**
 * The test run's built package (see {@link buildPackage}), or the checkout itself when no global
 * setup made one (a file run by hand outside vitest's config).
 */
export function builtPackage(): string {
  return process.env[TEST_BUILT_PACKAGE] ?? REPO;
}

/**
 * Vitest's global setup, after the temporary root's: builds the package once per run into that
 * root, names it in {@link TEST_BUILT_PACKAGE} (the workers and what they spawn inherit it), and
 * names its dist/ in {@link BUILT_DIST_ENV}: the child-process crash mode and the `--workers`
 * threads of commands run in vitest's workers start its JavaScript instead of the sources. A second project's setup finds the variable set and builds
 * nothing. The temporary root's teardown removes the build; this one's unsets the variables.
 */
export async function setup(): Promise<(() => void) | undefined> {
  if (process.env[TEST_BUILT_PACKAGE] !== undefined) return undefined;
  const root = process.env[TEST_TEMP_ROOT];
  if (root === undefined) throw new Error("the temporary root's global setup must run first");
  const out = join(root, 'faultline-built-package');
  await buildPackage(out);
  process.env[TEST_BUILT_PACKAGE] = out;
  process.env[BUILT_DIST_ENV] = join(out, 'dist');
  return () => {
    delete process.env.FAULTLINE_TEST_BUILT_PACKAGE;
    delete process.env.FAULTLINE_BUILT_DIST;
  };
}
