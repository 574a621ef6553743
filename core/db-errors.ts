// Errors that mean "the database cannot be reached right now", as opposed to a bug in a query: the
// request is answered 503 with Retry-After, so clients back off and retry instead of reporting a 500.

/** Node socket errors raised while connecting to or talking with the database server. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01–57P03
 * (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
 */
const pgCodes = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300']);

/** SQLite: another process held the write lock for longer than the busy timeout. */
const sqliteCodes = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);

/** node-postgres reports a dropped connection with these messages and no code (knex prefixes the SQL). */
const pgMessages = [
  /Connection terminated/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/** How long a client should wait before retrying, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** True when `err` (or an error it wraps) says the database is unreachable, not that the request was wrong. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { name?: unknown; code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  // knex: no pool connection could be acquired within acquireConnectionTimeout.
  if (e.name === 'KnexTimeoutError') return true;
  if (
    typeof e.code === 'string' &&
    (socketCodes.has(e.code) || pgCodes.has(e.code) || sqliteCodes.has(e.code))
  ) {
    return true;
  }
  if (typeof e.message === 'string' && pgMessages.some((re) => re.test(e.message as string))) return true;
  // Node reports a refused connection to several addresses as an AggregateError of socket errors.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true;
  return e.cause !== undefined && isDatabaseUnavailable(e.cause, depth + 1);
}

/**
 * PostgreSQL refused text from the request it cannot store (22021: a NUL character; 22P05: a character
 * with no equivalent in the encoding). The request is wrong, not the server: a 400.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * What may be logged of a database error: its code and the driver's message without the statement
 * knex puts in front of it, so no value of a query (a token hash, a user's data) reaches the log.
 */
export function databaseErrorSummary(err: unknown): { error_code?: string; error: string } {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const cut = message.lastIndexOf(' - ');
  const summary: { error_code?: string; error: string } = {
    error: cut === -1 ? message : message.slice(cut + 3),
  };
  if (typeof e.code === 'string') summary.error_code = e.code;
  return summary;
}
