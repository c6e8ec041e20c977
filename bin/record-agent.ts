import type { InteractionLog } from '../recordings/interaction-log.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { ScaledWallClock } from '../scenarios/wall-clock.js';
import type { RecordedSessionParts } from './commands/record.js';
import type { Io } from './io.js';
import type { LiveTarget } from './live-target.js';
import { UsageError } from './usage-error.js';

export interface AgentSessionOptions {
  readonly target: LiveTarget;
  readonly scenario: Scenario;
  readonly runId: string;
  readonly clock: ScaledWallClock;
  readonly log: InteractionLog;
  readonly agent: string;
  readonly flags: Record<string, unknown>;
  readonly modelDir: string;
  readonly io: Io;
}

export function recordAgentSession(
  _options: AgentSessionOptions,
): Promise<RecordedSessionParts | undefined> {
  return Promise.reject(new UsageError('--agent: not yet wired to the live world'));
}
