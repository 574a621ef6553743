import { resolve } from 'node:path';
import { BackupError, backupSqlite, restoreSqlite, sqliteFileOf } from '../../db/backup.ts';
import { type BaseContext, defineFileCommand, output } from '../command.ts';
import { CliError } from '../errors.ts';

/** The SQLite file of DATABASE_URL; PostgreSQL has its own tools, which the README describes. */
function sqliteFile(ctx: BaseContext, verb: string): string {
  const file = sqliteFileOf(ctx.config.databaseUrl);
  if (file === undefined) {
    throw new CliError(
      `${verb} works on SQLite databases; for PostgreSQL use pg_dump -Fc and pg_restore ` +
        '(README, "Backup and restore")',
    );
  }
  return resolve(file);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

/** BackupError's message is already meant for the operator. */
async function operatorErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BackupError) throw new CliError(err.message);
    throw err;
  }
}

export const backup = defineFileCommand({
  name: 'backup',
  summary: 'copy the SQLite database, documents included, to a new file (safe while the server runs)',
  arguments: { file: 'the file to write (must not exist yet)' },
  options: {},
  async run(ctx, args) {
    const source = sqliteFile(ctx, 'backup');
    const target = resolve(args.positionals[0]!);
    const done = await operatorErrors(() => backupSqlite(source, target));
    output(ctx, done, () => [
      `backed up ${source} to ${done.file} (${megabytes(done.bytes)}, ${done.migrations} migrations applied)`,
    ]);
  },
});

export const restore = defineFileCommand({
  name: 'restore',
  summary: 'put a backup in place of the SQLite database (the server must be stopped)',
  arguments: { file: 'a file written by "portfolio backup"' },
  options: {},
  async run(ctx, args) {
    const target = sqliteFile(ctx, 'restore');
    const file = resolve(args.positionals[0]!);
    if (file === target) throw new CliError(`${file} is the database itself`);
    const done = await operatorErrors(() => restoreSqlite(file, target, ctx.clock.now()));
    output(ctx, done, () => [
      `restored ${done.file} into ${done.database} (${done.migrations} migrations applied; the next start ` +
        'applies any newer ones)',
      done.replaced
        ? `the database it replaced is kept as ${done.replaced}`
        : `there was no database at ${done.database} before`,
    ]);
  },
});
