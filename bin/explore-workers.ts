import type { ExploreAgent, JudgedPlan, PlanJudges } from '../explore/explore.js';
import type { FaultPlan } from '../faults/catalog.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { AgentSource } from './agent-source.js';
import { planJudge } from './plan-judge.js';
import { WorkerPool, type WorkerReply, type WorkerTask } from './workers.js';

/**
 * Judges for `faultline explore --workers N`: `n` worker threads, started once, that judge the
 * plans of any scenario they can load (the built-in ones and `scenarioFiles`) with the agent
 * `agent` names. Close it when the exploration is over.
 *
 * @example
 * ```ts
 * const judges = exploreWorkers({ agent: { kind: 'zoo', name: 'reference' }, scenarioFiles: [], outDir: '.faultline', n: 2 });
 * try {
 *   await explore({ scenario, agent, runs: 500, seed: 1, judges });
 * } finally {
 *   await judges.close();
 * }
 * ```
 */
export function exploreWorkers(options: {
  agent: AgentSource;
  scenarioFiles: readonly string[];
  outDir: string;
  n: number;
  /**
   * The agent `agent` names, already built in this thread: given, this thread judges plans
   * itself until the first worker thread has loaded (seconds, on a busy machine), with the
   * same verdicts a worker would give.
   */
  here?: ExploreAgent;
}): PlanJudges & Pick<WorkerPool, 'ready' | 'utilization' | 'threadIds' | 'close'> {
  const pool = new WorkerPool(
    {
      kind: 'explore',
      agent: options.agent,
      scenarioFiles: options.scenarioFiles,
      outDir: options.outDir,
    },
    options.n,
    // Each thread holds the plan it judges and the next: a plan takes milliseconds, and a
    // thread that had to ask the main thread for its next one would wait on it every time.
    { inHand: 2 },
  );
  const here = options.here === undefined ? undefined : planJudge(options.here, options.outDir);
  return {
    judge: async (
      scenario: Scenario,
      plans: readonly FaultPlan[],
      context: { worldSeed: number; witness?: boolean },
      onJudged: (index: number, failing: JudgedPlan | undefined) => void,
      stop: () => boolean,
    ) => {
      await pool.run(
        plans.map((plan) => ({
          kind: 'plan',
          task: { scenarioId: scenario.id, plan, ...context },
        })),
        (reply, _task, position) => {
          if (reply.kind === 'judged') onJudged(position, reply.judged);
        },
        stop,
        here === undefined
          ? undefined
          : (task: WorkerTask): Promise<WorkerReply> => {
              if (task.kind !== 'plan')
                return Promise.reject(new Error('explore judges plans only'));
              return here(scenario, task.task);
            },
      );
    },
    ready: () => pool.ready(),
    utilization: (since) => pool.utilization(since),
    threadIds: () => pool.threadIds(),
    close: () => pool.close(),
  };
}
