import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { ExploreAgent } from '../explore/explore.js';
import { ModelReplayMissError } from '../recordings/replay-model.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/library/index.js';
import { loadScenarioFile } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { resolveAgent } from './agent-source.js';
import { runCase, suiteAgent, suiteCases } from './suite.js';
import type { PlanTask, WorkerJob, WorkerReply, WorkerTask } from './workers.js';

/**
 * A worker thread of `faultline run --workers N` or `faultline explore --workers N`: runs the
 * cases, or judges the plans, the main thread hands it, one at a time.
 */
const job = workerData as WorkerJob;
const port = parentPort;
if (!port) throw new Error('bin/worker-main.ts runs only as a worker thread');
const reply = (r: WorkerReply): void => {
  port.postMessage(r);
};
const failed = (index: number, error: unknown): void => {
  reply({
    kind: 'error',
    index,
    message: error instanceof Error ? error.message : String(error),
    ...(error instanceof ModelReplayMissError ? { miss: error.data } : {}),
  });
};
const handle = job.kind === 'suite' ? await suiteHandler(job) : await exploreHandler(job);
// Tasks are done one at a time, in the order they came: the main thread may queue the next
// while this one runs (see WorkerPool's inHand), and matches answers to tasks by that order.
let queue: Promise<void> = Promise.resolve();
port.on('message', (task: WorkerTask) => {
  queue = queue.then(() => handle(task));
});
reply({ kind: 'idle', ...osThread() });

/** This thread's OS id (Linux's /proc/thread-self names it), so CPU can be told per thread. */
function osThread(): { thread?: number } {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(id) ? { thread: id } : {};
  } catch {
    return {};
  }
}

async function suiteHandler(
  suiteJob: WorkerJob & { kind: 'suite' },
): Promise<(task: WorkerTask) => Promise<void>> {
  const cases = await suiteCases(suiteJob.suite);
  // Rebuilt here from its source (a module path, a config file and entry): functions do not
  // cross into a worker thread.
  const agent = await suiteAgent(suiteJob.suite);
  return (task) => {
    const index = task.kind === 'case' ? task.index : -1;
    const c = cases[index];
    if (!c) {
      reply({ kind: 'error', index, message: `no case ${index}` });
      return Promise.resolve();
    }
    return runCase(c, agent, suiteJob.out, suiteJob.suite.model).then(
      ({ result, trajectory }) => {
        reply({ kind: 'result', result, trajectory });
      },
      (error: unknown) => {
        failed(index, error);
      },
    );
  };
}

async function exploreHandler(
  exploreJob: WorkerJob & { kind: 'explore' },
): Promise<(task: WorkerTask) => Promise<void>> {
  const scenarios: Scenario[] = [...BUILT_IN_SCENARIOS];
  for (const file of exploreJob.scenarioFiles) scenarios.push(...(await loadScenarioFile(file)));
  const agent: ExploreAgent = await resolveAgent(exploreJob.agent);
  // Exploration's judge (and with it fast-check) is imported by an exploring thread only: a
  // thread of `run --workers` never needs it.
  const { planJudge } = await import('./plan-judge.js');
  const judgeTask = planJudge(agent, exploreJob.outDir);
  return (task) => {
    if (task.kind !== 'plan') {
      failed(-1, new Error('an exploring worker judges plans only'));
      return Promise.resolve();
    }
    return judge(task.task).then(reply, (error: unknown) => {
      failed(-1, error);
    });
  };

  function judge(task: PlanTask): Promise<WorkerReply> {
    const scenario = scenarios.find((s) => s.id === task.scenarioId);
    if (!scenario)
      return Promise.reject(new Error(`no scenario "${task.scenarioId}" in this worker`));
    return judgeTask(scenario, task);
  }
}
