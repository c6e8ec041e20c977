// Compiles against the package's declarations only: a user's tsc never checks faultline's sources.
import {
  BUILT_IN_SCENARIOS,
  runTrial,
  type Scenario,
  type Trajectory,
  type RunGrades,
  type Finding,
} from 'faultline';
import { defineConfig, type FaultlineConfig } from 'faultline/config';
import { loadCassette } from 'faultline/recordings';

export const scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS;
export const config: ReturnType<typeof defineConfig> = defineConfig({ run: { trials: 1 } });
export type Settings = FaultlineConfig['run'];
export type Loaded = Awaited<ReturnType<typeof loadCassette>>;
export type Ended = Awaited<ReturnType<typeof runTrial>>['trajectory'] extends Trajectory
  ? true
  : never;
export const findings = (run: RunGrades): readonly Finding[] =>
  Object.values(run.grades).flatMap((grade) => grade.findings);
