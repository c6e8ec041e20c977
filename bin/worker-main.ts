import { parentPort, workerData } from 'node:worker_threads';
import { ModelReplayMissError } from '../recordings/replay-model.js';
import { runCase, suiteAgent, suiteCases } from './suite.js';
import type { WorkerJob, WorkerReply } from './workers.js';

/** A worker thread of `faultline run --workers N`: runs the cases the main thread hands it. */
const job = workerData as WorkerJob;
const port = parentPort;
if (!port) throw new Error('bin/worker-main.ts runs only as a worker thread');
const cases = await suiteCases(job.suite);
// Rebuilt here from its source (a module path, a config file and entry): functions do not
// cross into a worker thread.
const agent = await suiteAgent(job.suite);
port.on('message', (index: number) => {
  const c = cases[index];
  const reply = (r: WorkerReply): void => {
    port.postMessage(r);
  };
  if (!c) {
    reply({ kind: 'error', index, message: `no case ${index}` });
    return;
  }
  runCase(c, agent, job.out, job.suite.model).then(
    ({ result, trajectory }) => {
      reply({ kind: 'result', result, trajectory });
    },
    (error: unknown) => {
      reply({
        kind: 'error',
        index,
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof ModelReplayMissError ? { miss: error.data } : {}),
      });
    },
  );
});
port.postMessage({ kind: 'idle' } satisfies WorkerReply);
