export {
  CMDB_REFERENCE_DATE,
  DEFAULT_CI_NOTES,
  DISCOVERY_PAGE_SIZE,
  RETIRE_AFTER_DAYS,
  SCAN_ID,
  generateCmdbData,
} from './data.js';
export type {
  BusinessService,
  CmdbData,
  CmdbDataOptions,
  ConfigurationItem,
  DiscoveredHost,
  DiscoveryScan,
  DiscoverySource,
  Environment,
  Relationship,
  Sighting,
} from './data.js';
export * from './schemas.js';
export {
  CmdbWorld,
  SYNC_ACCOUNT,
  UPDATABLE_FIELDS,
  ciCreateIdentity,
  ciLinkIdentity,
  ciRetireIdentity,
  ciUpdateIdentity,
  syncReportIdentity,
} from './world.js';
export type {
  CiRecord,
  CmdbState,
  CmdbWorldOptions,
  RelationshipRecord,
  SyncReportRecord,
  UpdatableField,
} from './world.js';
