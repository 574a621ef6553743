import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CommanderError } from 'commander';
import { systemClock } from '../core/clock.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { createRepos } from '../db/repos/index.ts';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import type { Command, Io } from './command.ts';
import { appsCreate, appsList, appsRevoke } from './commands/apps.ts';
import { backup, restore } from './commands/backup.ts';
import { migrate, seed } from './commands/database.ts';
import { demoRemove } from './commands/demo.ts';
import { firmsCreate, firmsList } from './commands/firms.ts';
import { importCommand } from './commands/import.ts';
import { mcpCommand } from './commands/mcp.ts';
import { outboxList, outboxSend, outboxShow } from './commands/outbox.ts';
import { pruneCommand } from './commands/prune.ts';
import { serve } from './commands/serve.ts';
import { tokensCreate, tokensList, tokensRevoke } from './commands/tokens.ts';
import { usersCreate, usersList } from './commands/users.ts';
import { UsageError } from './errors.ts';
import { buildProgram, type Invocation, usageLine } from './program.ts';

/** Every command, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  migrate,
  seed,
  backup,
  restore,
  serve,
  mcpCommand,
  firmsCreate,
  firmsList,
  usersCreate,
  usersList,
  appsCreate,
  appsList,
  appsRevoke,
  tokensCreate,
  tokensList,
  tokensRevoke,
  importCommand,
  pruneCommand,
  outboxList,
  outboxShow,
  outboxSend,
  demoRemove,
];

/** better-sqlite3 does not create the directory of a database file. */
function ensureSqliteDirectory(databaseUrl: string): void {
  if (!databaseUrl.startsWith('sqlite:')) return;
  const file = databaseUrl.replace(/^sqlite:(\/\/)?/, '');
  if (file === '' || file === ':memory:') return;
  mkdirSync(dirname(resolve(file)), { recursive: true });
}

/** Opens and (unless the command says otherwise) migrates the database, then runs the command over it. */
async function run({ command, args }: Invocation, io: Io): Promise<void> {
  const config = loadConfig(io.env);
  const base = { io, config, clock: systemClock, json: args.flag('json') };
  if ('database' in command) return command.run(base, args);
  ensureSqliteDirectory(config.databaseUrl);
  const db = openDb(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    logger: createLogger(config.logLevel, { format: config.logFormat }),
  });
  try {
    const migrated = command.migrate === false ? [] : await migrateLatest(db);
    await command.run({ ...base, db, repos: createRepos(db), migrated }, args);
  } finally {
    await db.destroy();
  }
}

const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** Runs one command line; answers the exit status (0 ok, 1 failure, 2 bad usage). */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  let invocation: Invocation | undefined;
  try {
    const program = buildProgram(commands, io, (found) => {
      invocation = found;
    });
    await program.parseAsync([...argv], { from: 'user' });
    // Nothing selected: help was printed.
    if (invocation) await run(invocation, io);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return 0;
    if (err instanceof UsageError) {
      const usage = err.usage ?? (invocation ? usageLine(invocation.command) : 'usage: portfolio --help');
      io.err(`portfolio: ${err.message}\n${usage}\n`);
      return 2;
    }
    // AccountError, CliError, ConfigError and anything unexpected: one line for a person.
    const message = err instanceof Error ? err.message : String(err);
    io.err(`portfolio: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
    return 1;
  }
}
