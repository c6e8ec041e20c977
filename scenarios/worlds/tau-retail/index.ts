export * from './data.js';
export { calculate, roundCents } from './calculate.js';
export * from './schemas.js';
export { storeHash, TABLES } from './store-hash.js';
export type { Overlay, Table } from './store-hash.js';
export { CANCEL_REASONS, CONFIRMED_WRITES, RetailWorld, retailIdentity } from './world.js';
export type { RetailSnapshot, RetailState, RetailWorldOptions } from './world.js';
