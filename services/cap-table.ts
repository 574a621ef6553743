// The cap-table writes: the rules of each request, the rows it derives, its change log and events.
export { addFinancingRounds, type FinancingIn } from './cap-table/financings.ts';
export { type Item, type ItemLists, MAX_ITEMS, type Raw } from './cap-table/items.ts';
export { type OverrideKind, type OverridesIn, upsertOverrides } from './cap-table/overrides.ts';
export { capTableRecord } from './cap-table/records.ts';
export { addSecurities, SECURITY_KINDS, type SecurityKind } from './cap-table/securities.ts';
export { addShareClasses, type ShareClassIn } from './cap-table/share-classes.ts';
export { addTransactions, type TransactionIn, type TransactionKind } from './cap-table/transactions.ts';
