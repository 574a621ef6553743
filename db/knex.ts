import type BetterSqlite3 from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import type { Logger } from '../core/logger.ts';
import { attachTotals, CountCache, SnapshotTotals } from './count-cache.ts';
import { migrationSource } from './migrations/index.ts';
import { attachReader, PgReader, SqliteReader } from './prepared.ts';
import { ImmediateSqliteClient } from './sqlite-client.ts';

export type Db = Knex;

export { isPostgres } from './dialect.ts';

/** Connections of each PostgreSQL pool (knex's, and the prepared reads' own). */
const PG_POOL = 10;

/** SQLite's page cache of the service's connection, KiB (see openDb). */
const SQLITE_CACHE_KIB = 4000;

/** FULL: an acknowledged write survives power loss. NORMAL (in WAL mode): it survives a process crash only. */
export type SqliteSynchronous = 'FULL' | 'NORMAL';

export interface OpenOptions {
  sqliteSynchronous?: SqliteSynchronous;
  /** Where knex's own warnings go (instead of console.log on stdout). */
  logger?: Logger;
}

/** Opens the database named by a DATABASE_URL (`sqlite:PATH`, `sqlite::memory:` or `postgres://…`). */
/** knex's own warnings (pool, deprecations) through our logger instead of console.log on stdout. */
function knexLog(logger: Logger | undefined): Knex.Config['log'] {
  if (!logger) return undefined;
  const text = (message: unknown) => ({
    detail: typeof message === 'string' ? message : JSON.stringify(message),
  });
  return {
    warn: (m: unknown) => logger.warn('database', text(m)),
    error: (m: unknown) => logger.error('database', text(m)),
    deprecate: (m: unknown) => logger.warn('database deprecation', text(m)),
    debug: (m: unknown) => logger.debug('database', text(m)),
  };
}

export function openDb(url: string, options: OpenOptions = {}): Knex {
  const synchronous = options.sqliteSynchronous ?? 'FULL';
  const log = knexLog(options.logger);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const db = knexFactory({
      log,
      client: 'pg',
      connection: url,
      pool: { min: 0, max: PG_POOL },
      // Fail a request after 5 s without a connection (database down or pool exhausted): a 503, not a hang.
      acquireConnectionTimeout: 5000,
    });
    attachTotals(db, new SnapshotTotals());
    attachReader(
      db,
      new PgReader(url, PG_POOL, (err) => options.logger?.warn('database', { detail: err.message })),
    );
    return db;
  }
  const filename = url.replace(/^sqlite:(\/\/)?/, '');
  const countCache = new CountCache();
  const reader = new SqliteReader();
  const db = knexFactory({
    log,
    client: ImmediateSqliteClient as unknown as typeof knexFactory.Client,
    connection: { filename },
    useNullAsDefault: true,
    // One connection: better-sqlite3 is synchronous, and one writer avoids SQLITE_BUSY entirely.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
        if (filename !== ':memory:') conn.pragma('journal_mode = WAL');
        conn.pragma(`synchronous = ${synchronous}`);
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        // SQLite's own page cache, on top of the operating system's, which keeps the file's pages anyway:
        // better-sqlite3 sets it to 16 MB, all of it resident once a large database is read. 4 MB
        // answered the bench's deep pages at the same speed with 12–14 MB less peak memory.
        conn.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
        // A new connection's change counters start again: totals kept under the old ones must go.
        countCache.clear();
        reader.connected(conn);
        done(null, conn);
      },
    },
  });
  attachTotals(db, countCache);
  attachReader(db, reader);
  return db;
}

/**
 * Applies the pending migrations. A database that already holds exactly this version's migrations (every
 * start but the first after an upgrade) is only read: knex's own pass takes its lock in a transaction and
 * reads the schema twice, a dozen statements. Anything else goes through knex, which also refuses a
 * database migrated by a newer version (a migration it does not know).
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const known = await knownMigrations();
  const applied = new Set(await appliedMigrations(db));
  if (applied.size === known.length && known.every((name) => applied.has(name))) return [];
  const [, done] = await db.migrate.latest({ migrationSource });
  return done as string[];
}

/** The migrations this version knows, in the order they apply. */
export async function knownMigrations(): Promise<string[]> {
  const all = await migrationSource.getMigrations([]);
  return all.map((m) => migrationSource.getMigrationName(m));
}

/** Migrations applied to a database and those this version would apply, in order. */
export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

/** What `migrateLatest` would do, without doing it (nothing is created in the database). */
export async function migrationStatus(db: Knex): Promise<MigrationStatus> {
  const known = await knownMigrations();
  const applied = await appliedMigrations(db);
  return { applied, pending: known.filter((name) => !applied.includes(name)) };
}

/** The migrations applied to a database, in the order they were (none before the first). */
async function appliedMigrations(db: Knex): Promise<string[]> {
  return (await db.schema.hasTable('knex_migrations'))
    ? ((await db('knex_migrations').orderBy('id').pluck('name')) as string[])
    : [];
}

export async function migrateRollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
