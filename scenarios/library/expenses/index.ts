import type { Scenario } from '../../scenario.js';
import { amendedClaim } from './amended-claim.js';
import { controllerSignOff } from './controller-sign-off.js';
import { deputySignOff } from './deputy-sign-off.js';
import { duplicateClaim } from './duplicate-claim.js';
import { monthEndSignOffs } from './month-end-sign-offs.js';
import { overPolicyDinner } from './over-policy-dinner.js';
import { teamLunch } from './team-lunch.js';
import { withdrawnClaim } from './withdrawn-claim.js';

/** The expense-approval scenarios, in the order `faultline run` runs them. */
export const EXPENSES_SCENARIOS: readonly Scenario[] = [
  teamLunch,
  controllerSignOff,
  amendedClaim,
  overPolicyDinner,
  withdrawnClaim,
  deputySignOff,
  duplicateClaim,
  monthEndSignOffs,
];
