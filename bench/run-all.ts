/** `npm run bench`: every benchmark, figures printed, nothing asserted. */
import { benchDurableStep } from './durable-step.js';
import { benchLongRun } from './long-run.js';
import { benchTokenEconomics } from './token-economics.js';
import { benchVirtualTime } from './virtual-time.js';

console.log(`faultline benchmarks · node ${process.version} · ${new Date().toISOString()}\n`);
await benchVirtualTime();
console.log('');
await benchDurableStep();
console.log('');
await benchTokenEconomics();
console.log('');
await benchLongRun();
