import type { Scenario } from '../../scenario.js';
import { assignVip } from './assign-vip.js';
import { downgradeDenied } from './downgrade-denied.js';
import { escalationInvestigate } from './escalation-investigate.js';
import { p1Outage } from './p1-outage.js';
import { reassignOnLeave } from './reassign-on-leave.js';
import { slaQueue } from './sla-queue.js';
import { triageNewTicket } from './triage-new-ticket.js';
import { twoLockoutsP1 } from './two-lockouts-p1.js';

/** The tickets world's scenarios, in the order `faultline run` runs them. */
export const TICKETS_SCENARIOS: readonly Scenario[] = [
  triageNewTicket,
  assignVip,
  slaQueue,
  reassignOnLeave,
  p1Outage,
  escalationInvestigate,
  downgradeDenied,
  twoLockoutsP1,
];
