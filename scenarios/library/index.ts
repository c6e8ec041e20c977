import type { Scenario } from '../scenario.js';
import { CMDB_SCENARIOS } from './cmdb/index.js';
import { mergeDenied } from './crm/merge-denied.js';
import { mergeDuplicates } from './crm/merge-duplicates.js';
import { reassignOwner } from './crm/reassign-owner.js';
import { updateContact } from './crm/update-contact.js';
import { EXPENSES_SCENARIOS } from './expenses/index.js';
import { NOTIFICATIONS_SCENARIOS } from './notifications/index.js';
import { alreadyRefunded } from './refunds/already-refunded.js';
import { approvalDenied } from './refunds/approval-denied.js';
import { fullRefund } from './refunds/full-refund.js';
import { goodwillRefund } from './refunds/goodwill-refund.js';
import { partialRefund } from './refunds/partial-refund.js';
import { supervisedRefund } from './refunds/supervised-refund.js';
import { RESEARCH_SCENARIOS } from './research/index.js';
import { TICKETS_SCENARIOS } from './tickets/index.js';

/** The built-in suite, in the order `faultline run` runs it. */
export const BUILT_IN_SCENARIOS: readonly Scenario[] = [
  fullRefund,
  partialRefund,
  alreadyRefunded,
  supervisedRefund,
  approvalDenied,
  goodwillRefund,
  updateContact,
  reassignOwner,
  mergeDuplicates,
  mergeDenied,
  ...EXPENSES_SCENARIOS,
  ...TICKETS_SCENARIOS,
  ...NOTIFICATIONS_SCENARIOS,
  ...CMDB_SCENARIOS,
  ...RESEARCH_SCENARIOS,
];
