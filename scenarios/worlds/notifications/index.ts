export {
  BRAND,
  NOTIFY_REFERENCE_DATE,
  SECURITY_EVENT_ID,
  generateNotificationsData,
} from './data.js';
export type {
  Appointment,
  Channel,
  Consent,
  Incident,
  IncidentStatus,
  NotificationsData,
  OverdueInvoice,
  Recipient,
  SecurityEvent,
  ServiceArea,
  Template,
  TemplateCategory,
} from './data.js';
export * from './schemas.js';
export {
  NotificationsWorld,
  QUIET_HOURS,
  bulkIdentity,
  cancelIdentity,
  messageIdentity,
} from './world.js';
export type {
  BatchRecord,
  MessageRecord,
  NotificationsState,
  NotificationsWorldOptions,
  RecipientRecord,
  TemplateRecord,
} from './world.js';
