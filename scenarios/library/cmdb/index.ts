import type { Scenario } from '../../scenario.js';
import { decommission } from './decommission.js';
import { driftUpdate } from './drift-update.js';
import { modelBudget } from './model-budget.js';
import { nightlySync } from './nightly-sync.js';
import { onboardHosts } from './onboard-hosts.js';
import { retireRequest } from './retire-request.js';
import { syncQuota } from './sync-quota.js';

/** The CMDB synchronisation scenarios, from the everyday chores to the long nightly run. */
export const CMDB_SCENARIOS: readonly Scenario[] = [
  onboardHosts,
  driftUpdate,
  retireRequest,
  decommission,
  syncQuota,
  modelBudget,
  nightlySync,
];
