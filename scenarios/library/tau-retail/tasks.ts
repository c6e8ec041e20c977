import { z } from 'zod';
import { parseInput } from '../../../runtime/validate.js';
import { readDataFile } from '../../worlds/tau-retail/data.js';

/** One gold action: a tool of the store and its arguments, as the benchmark lists them. */
export const goldActionSchema = z.strictObject({
  name: z.string().min(1),
  kwargs: z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())])),
});

/** One τ-bench task: the customer, their instruction, the gold actions, the required outputs. */
export const retailTaskSchema = z.looseObject({
  user_id: z.string().min(1),
  instruction: z.string().min(1),
  actions: z.array(goldActionSchema),
  outputs: z.array(z.string()),
});
export type RetailTask = z.infer<typeof retailTaskSchema>;
export type GoldAction = z.infer<typeof goldActionSchema>;

/** The benchmark's two task lists, by the name the library gives them. */
export const TASK_SPLITS = {
  test: 'tasks_test.json',
  train: 'tasks_train.json',
} as const;
export type TaskSplit = keyof typeof TASK_SPLITS;

/**
 * A task file's tasks, checked: a malformed file or task is one error naming the file and the
 * task's place in it (`tasks_test.json: [12].actions[3].name: …`).
 *
 * @example
 * ```ts
 * parseTasks(JSON.parse(text), 'tasks_test.json').length; // 115
 * ```
 */
export function parseTasks(value: unknown, file: string): RetailTask[] {
  return parseInput(z.array(retailTaskSchema), value, `tau-retail task file ${file}`);
}

/** The tasks of a split, read from the data folder (the caller caches what it builds). */
export function loadTasks(split: TaskSplit): RetailTask[] {
  const file = TASK_SPLITS[split];
  return parseTasks(readDataFile(file), file);
}
