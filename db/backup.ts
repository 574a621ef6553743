// Backup and restore of a SQLite database file. The copy goes through SQLite's online backup API in
// one step, so it is one consistent snapshot even while a server writes (in WAL mode a reader does
// not block writers); documents are rows of the database, so they are in it.
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { knownMigrations } from './knex.ts';

/** Why a backup or a restore cannot go ahead, in words for the operator. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The file of a `sqlite:PATH` DATABASE_URL; undefined for PostgreSQL. */
export function sqliteFileOf(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.replace(/^sqlite:(\/\/)?/, '');
  if (file === '' || file === ':memory:')
    throw new BackupError('an in-memory database has nothing to back up');
  return file;
}

function sqliteCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** Copies `source` into `target` with the backup API, every page in one step: one snapshot. */
async function copyDatabase(source: Database.Database, target: string): Promise<void> {
  // The first step copies nothing; the callback's answer makes the second copy every page, so that
  // no write of another connection can land between steps (which would restart the copy).
  await source.backup(target, { progress: () => 0x7fffffff });
}

export interface BackupResult {
  file: string;
  bytes: number;
  migrations: number;
}

/** Writes a consistent copy of the database `source` to `file`, which must not exist yet. */
export async function backupSqlite(source: string, file: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new BackupError(`the database ${source} does not exist`);
  if (existsSync(file)) throw new BackupError(`${file} already exists; give the name of a new file`);
  const partial = `${file}.partial-${process.pid}`;
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await copyDatabase(db, partial);
    // The copy carries the source's WAL mode; in rollback-journal mode it is one self-contained file.
    const copy = new Database(partial, { fileMustExist: true });
    copy.pragma('journal_mode = DELETE');
    copy.close();
    const migrations = checkServiceDatabase(partial, await knownMigrations());
    renameSync(partial, file);
    return { file, bytes: statSync(file).size, migrations: migrations.length };
  } catch (err) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`could not back up ${source}: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * The migrations applied in `file` when it is an intact database of this service whose migrations
 * this version knows; a BackupError naming the problem otherwise.
 */
export function checkServiceDatabase(file: string, known: readonly string[]): string[] {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const hasTable = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'knex_migrations'")
      .get();
    if (!hasTable)
      throw new BackupError(`${file} is not a database of this service (it has no migration table)`);
    const applied = (
      db.prepare('select name from knex_migrations order by id').all() as { name: string }[]
    ).map((r) => r.name);
    const unknown = applied.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      throw new BackupError(
        `${file} was written by a newer version of the service (migrations ${unknown.join(', ')} are unknown ` +
          'to this one); restore it with that version',
      );
    }
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} is damaged: ${String(check)}`);
    return applied;
  } catch (err) {
    if (err instanceof BackupError) throw err;
    if (sqliteCode(err) === 'SQLITE_NOTADB') throw new BackupError(`${file} is not a SQLite database`);
    throw new BackupError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    db?.close();
  }
}

/**
 * Takes sole hold of an existing database file, or fails when any other connection has it open.
 * The service keeps SQLite in WAL mode and every server process keeps a connection open for its
 * life; SQLite lets a connection switch a WAL database to another journal mode only while no other
 * connection has it open. So the switch fails exactly while a server (or any other process) uses
 * the file, and needs no pid or lock file that a crash could leave behind. Once it succeeds, the
 * write-ahead log is folded into the file and an exclusive lock keeps others out until `release`.
 */
function holdExclusively(file: string): { release(): void } {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new BackupError(`cannot open the current database ${file}: ${(err as Error).message}`);
  }
  const inUse = () =>
    new BackupError(
      `the database ${file} is in use by another process (a running server?); stop it, then restore again`,
    );
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    const mode = db.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw inUse();
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (err instanceof BackupError) throw err;
    if (sqliteCode(err) === 'SQLITE_BUSY' || sqliteCode(err) === 'SQLITE_LOCKED') throw inUse();
    if (sqliteCode(err) === 'SQLITE_NOTADB') {
      throw new BackupError(`${file} is not a SQLite database; refusing to replace it`);
    }
    throw new BackupError(`cannot lock the current database ${file}: ${(err as Error).message}`);
  }
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

export interface RestoreResult {
  file: string;
  database: string;
  migrations: number;
  /** Where the database that was replaced now is; null when there was none. */
  replaced: string | null;
}

/**
 * Puts the backup `file` in place of the database `target`: refused for a file that is not an intact
 * database of this service, and while any process has `target` open. The replaced database is kept
 * beside it, renamed, so a restore can itself be undone.
 */
export async function restoreSqlite(file: string, target: string, now: Date): Promise<RestoreResult> {
  const migrations = checkServiceDatabase(file, await knownMigrations());
  mkdirSync(dirname(target), { recursive: true });
  const staged = `${target}.restore-${process.pid}`;
  const source = new Database(file, { readonly: true, fileMustExist: true });
  try {
    await copyDatabase(source, staged);
  } catch (err) {
    rmSync(staged, { force: true });
    throw new BackupError(`cannot copy ${file} next to ${target}: ${(err as Error).message}`);
  } finally {
    source.close();
  }
  let replaced: string | null = null;
  let hold: { release(): void } | undefined;
  try {
    hold = existsSync(target) ? holdExclusively(target) : undefined;
    if (hold) {
      replaced = `${target}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(target, replaced);
    }
    // A log or shared-memory file left beside the old database must not be applied to the new one.
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
    renameSync(staged, target);
  } catch (err) {
    rmSync(staged, { force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`cannot put ${file} in place of ${target}: ${(err as Error).message}`);
  } finally {
    hold?.release();
  }
  return { file, database: target, migrations: migrations.length, replaced };
}
