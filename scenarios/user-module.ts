import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Extensions Node 20 cannot load without a TypeScript loader. */
const TYPESCRIPT = /\.[cm]?tsx?$/;

/** Run from the sources, faultline already runs under tsx (or vitest), which load TypeScript. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

let tsx: Promise<void> | undefined;

/**
 * Imports a user's module by path: a scenario file, `faultline.config.ts`, an agent module. The
 * built package registers tsx's loader the first time a TypeScript module is asked for, and not
 * before: faultline's own code never goes through tsx, and a JavaScript-only user never loads it.
 * Registered globally (not in a tsx namespace) so that the module's `import 'faultline'` gets
 * the same module instances the command runs on.
 *
 * @example
 * ```ts
 * const module = await importUserModule('/home/me/agents/my-agent.ts');
 * ```
 */
export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  if (!FROM_SOURCES && TYPESCRIPT.test(file)) {
    tsx ??= import('tsx/esm/api').then(({ register }) => {
      register();
    });
    await tsx;
  }
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const hint = commonJsHint(file);
    if (hint === undefined) throw error;
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new Error(`${first} (${hint})`, { cause: error });
  }
}

/**
 * Why a `.ts` file may have failed to load: in a package that is not `"type": "module"` (npm
 * init's default), tsx compiles it as CommonJS, and its `import … from 'faultline'` becomes a
 * `require` of an ES module. Undefined when that is not the case.
 */
function commonJsHint(file: string): string | undefined {
  if (!/\.tsx?$/.test(file)) return undefined;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      let type: unknown;
      try {
        type = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
      } catch {
        return undefined;
      }
      if (type === 'module') return undefined;
      return `${file} loads as CommonJS because ${manifest} does not say "type": "module"; faultline is an ES module: add "type": "module" there, or name the file .mts`;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
