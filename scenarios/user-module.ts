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
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}
