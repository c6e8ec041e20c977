#!/usr/bin/env node
/* global process, URL */
// The faultline command. An installed package runs its built JavaScript (dist/) on plain Node.
// A checkout, where the TypeScript sources sit beside this file, runs those sources through tsx
// instead: what a contributor edits is what runs, never a stale build, and no build step is
// needed before `npx faultline run`.
import { existsSync } from 'node:fs';

let cli = '../dist/bin/cli.js';
if (existsSync(new URL('./cli.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = './cli.ts';
}
const { main } = await import(cli);
process.exitCode = await main(process.argv.slice(2));
