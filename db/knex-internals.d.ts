// knex's SQLite dialect classes, which db/sqlite-client.ts extends; knex publishes no
// types for them, and each file states the slice it uses.
declare module 'knex/lib/dialects/better-sqlite3/index.js' {
  const Client: unknown;
  export default Client;
}
declare module 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js' {
  const Transaction: unknown;
  export default Transaction;
}
