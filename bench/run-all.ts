/** `npm run bench`: every benchmark, figures printed, nothing asserted. */
import { benchDurableStep } from './durable-step.js';

console.log(`faultline benchmarks · node ${process.version} · ${new Date().toISOString()}\n`);
await benchDurableStep();
