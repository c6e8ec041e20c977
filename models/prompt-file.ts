import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
