export { CRM_REFERENCE_DATE, DEFAULT_NOTES_SUMMARY, generateCrmData } from './data.js';
export type { Account, AccountTier, CrmData, CrmDataOptions } from './data.js';
export * from './schemas.js';
export {
  CrmWorld,
  accountUpdateIdentity,
  mergeIdentity,
  noteIdentity,
  unmergeIdentity,
} from './world.js';
export type { AccountRecord, CrmState, CrmWorldOptions, NoteRecord } from './world.js';
