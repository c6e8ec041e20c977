import { statSync } from 'node:fs';
import type { ModelSetup } from '../models/model-setup.js';
import { checkModelCassettes } from '../recordings/model-cassette.js';
import { UsageError } from './usage-error.js';

/** `faultline run`'s cassette options, for its `parseArgs` table. */
export const MODEL_CASSETTE_OPTIONS = {
  'record-model': { type: 'string' },
  'replay-model': { type: 'string' },
} as const;

/** The lines `faultline run --help` gives the cassette options. */
export const MODEL_CASSETTE_HELP = `  --record-model DIR   write every model call of every run (request, reply, usage, latency;
                       secrets redacted) to a cassette per run in DIR
  --replay-model DIR   answer every model call from the cassettes in DIR: offline, no key, the
                       same results every time; a request with no recording stops the suite
                       with the difference printed (exit 1), committing nothing`;

/**
 * The run's model with its cassette folders, checked before anything runs: the two options
 * exclude each other and need `--model`; a replay folder must exist and hold only model
 * cassettes of this version recorded with that model (one line naming the file and field
 * otherwise); a record folder may be absent (it is made) but not a file.
 *
 * @example
 * ```ts
 * const setup = withModelCassettes(model, { replay: 'test/cassettes/models' });
 * ```
 */
export function withModelCassettes(
  model: ModelSetup | undefined,
  flags: { record?: string | undefined; replay?: string | undefined },
): ModelSetup | undefined {
  const { record, replay } = flags;
  if (record !== undefined && replay !== undefined)
    throw new UsageError(
      '--record-model and --replay-model exclude each other (record once, then replay)',
    );
  const flag =
    record !== undefined ? '--record-model' : replay !== undefined ? '--replay-model' : undefined;
  if (flag === undefined) return model;
  if (!model)
    throw new UsageError(
      `${flag} needs --model PROVIDER:MODEL (the model the cassettes are${replay !== undefined ? '' : ' to be'} recorded with)`,
    );
  if (replay !== undefined) {
    checkModelCassettes(replay, model.spec);
    return { ...model, replayDir: replay };
  }
  const dir = record as string;
  let notFolder = false;
  try {
    notFolder = !statSync(dir).isDirectory();
  } catch {
    // Absent: made on the first recorded call.
  }
  if (notFolder) throw new UsageError(`--record-model ${dir}: not a folder`);
  return { ...model, recordDir: dir };
}
