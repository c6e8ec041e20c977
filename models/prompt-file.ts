import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaultlineError } from '../runtime/errors.js';
import type { PromptFile } from './model-setup.js';

/**
 * A prompt's version: `sha256:` and the first 12 hex digits of its bytes' hash. Results and
 * comparisons name prompts by it, so an edit of one character is another version.
 *
 * @example
 * promptHash('You are careful.'); // 'sha256:…' (12 hex digits)
 */
export function promptHash(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
}

/**
 * Reads a prompt file (`--prompt FILE`): its text and its hash, taken over the bytes on disk.
 * A missing or unreadable file throws the system error (the command names the path).
 */
export function readPromptFile(path: string): PromptFile {
  const bytes = readFileSync(path);
  return { path, text: bytes.toString('utf8'), hash: promptHash(bytes) };
}

const defaults = new Map<string, PromptFile>();

/**
 * `prompts/NAME.md`, the system prompt a built-in agent uses when the run gives none, read
 * once, with its hash. Found by walking up from this module, so it loads from the sources and
 * from `dist/`. Throws a FaultlineError naming the file when the package lacks it.
 */
export function defaultPromptFile(name: string): PromptFile {
  const known = defaults.get(name);
  if (known) return known;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'prompts', `${name}.md`);
    if (existsSync(file)) {
      const bytes = readFileSync(file);
      const prompt = {
        path: `prompts/${name}.md`,
        text: bytes.toString('utf8'),
        hash: promptHash(bytes),
      };
      defaults.set(name, prompt);
      return prompt;
    }
    const up = dirname(dir);
    if (up === dir)
      throw new FaultlineError(
        'not-found',
        `${name}: its default prompt prompts/${name}.md is missing from the package; pass one with --prompt FILE`,
      );
    dir = up;
  }
}
