export { generateRefundsData } from './data.js';
export type {
  Customer,
  Order,
  OrderItem,
  Payment,
  RefundsData,
  RefundsDataOptions,
} from './data.js';
export * from './schemas.js';
export { RefundsWorld, messageIdentity, refundIdentity } from './world.js';
export type {
  MessageRecord,
  OrderRecord,
  RefundRecord,
  RefundsState,
  RefundsWorldOptions,
} from './world.js';
