import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * The system's Chromium for browser tests, driven by playwright-core. Browsers come from the
 * operating system's packages (never `playwright install`, which downloads its own builds):
 * `CHROMIUM_PATH` when set, else Debian's `/usr/bin/chromium` or Ubuntu's
 * `/usr/bin/chromium-browser`.
 */

/** How to get the browser on Debian (what `.ci/run` does). */
export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y chromium';

/** Headless, quiet, and offline: no sandbox (containers run as root), no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** Where the browser is, and where it was looked for (to say so when it is not found). */
export interface ChromiumLookup {
  readonly path: string | null;
  readonly searched: readonly string[];
}

export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const searched = [env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (p): p is string => p !== undefined && p !== '',
  );
  return { path: searched.find((p) => existsSync(p)) ?? null, searched };
}

/** Under `CI=true` browser tests must run: a missing browser fails them instead of skipping. */
export function chromiumRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true';
}

/** Why browser tests cannot run here, and how to make them. */
export function chromiumMissing(lookup: ChromiumLookup): string {
  return (
    `Chromium not found (looked at ${lookup.searched.join(', ')}); install it with ` +
    `\`${CHROMIUM_INSTALL}\` or point CHROMIUM_PATH at a Chromium binary`
  );
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS], headless: true });
}
