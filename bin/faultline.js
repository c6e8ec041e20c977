#!/usr/bin/env node
/* global process */
// The faultline command: registers tsx so the TypeScript sources run without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
