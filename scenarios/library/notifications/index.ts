import type { Scenario } from '../../scenario.js';
import { maintenanceDenied } from './maintenance-denied.js';
import { outageAlreadyNotified } from './outage-already-notified.js';
import { outageNotice } from './outage-notice.js';
import { overdueInvoices } from './overdue-invoices.js';
import { securityNotice } from './security-notice.js';
import { visitReminderFallback } from './visit-reminder-fallback.js';
import { visitReminder } from './visit-reminder.js';

/** The notifications world's scenarios, in the order `faultline run` runs them. */
export const NOTIFICATIONS_SCENARIOS: readonly Scenario[] = [
  securityNotice,
  outageNotice,
  visitReminder,
  visitReminderFallback,
  overdueInvoices,
  outageAlreadyNotified,
  maintenanceDenied,
];
