// A worker thread of `faultline run --workers N` run from the sources: registers tsx, then runs
// bin/worker-main.ts (the built package starts dist/bin/worker-main.js directly).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
