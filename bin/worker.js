// A worker thread of `faultline run --workers N`: registers tsx, then runs bin/worker-main.ts.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
