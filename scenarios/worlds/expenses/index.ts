export { EXPENSES_REFERENCE_DATE, generateExpensesData } from './data.js';
export type {
  Claim,
  Employee,
  ExpenseCategory,
  ExpensesData,
  FinanceRole,
  FinanceUser,
  LineItem,
  PastPayout,
  Receipt,
} from './data.js';
export * from './schemas.js';
export {
  ExpensesWorld,
  claimStatusIdentity,
  payoutCancelIdentity,
  payoutIdentity,
} from './world.js';
export type {
  ClaimRecord,
  DelegationOption,
  DelegationRecord,
  ExpensesState,
  ExpensesWorldOptions,
  HistoryEntry,
  PayoutRecord,
} from './world.js';
