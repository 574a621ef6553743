import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { systemClock } from '../core/clock.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { createRepos } from '../db/repos/index.ts';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import type { Command, Io } from './command.ts';
import { appsCreate, appsList, appsRevoke } from './commands/apps.ts';
import { migrate, seed } from './commands/database.ts';
import { demoRemove } from './commands/demo.ts';
import { firmsCreate, firmsList } from './commands/firms.ts';
import { importCommand } from './commands/import.ts';
import { mcpCommand } from './commands/mcp.ts';
import { pruneCommand } from './commands/prune.ts';
import { serve } from './commands/serve.ts';
import { tokensCreate, tokensList, tokensRevoke } from './commands/tokens.ts';
import { usersCreate, usersList } from './commands/users.ts';

/** Every command, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  migrate,
  seed,
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
  demoRemove,
];

const GENERAL_USAGE = 'usage: portfolio <command> [options]; "portfolio --help" lists the commands';

function usageOf(command: Command): string {
  return `usage: portfolio ${command.name} ${command.usage}`;
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'portfolio: run and administer the portfolio data service',
    '',
    'usage: portfolio <command> [options]',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command reads DATABASE_URL (default sqlite:./data/portfolio.db) and migrates the database',
    'first. --json prints machine-readable output; "portfolio <command> --help" shows its options.',
    'Exit status: 0 success, 1 failure (one line on stderr), 2 bad usage.',
    '',
  ].join('\n');
}

/** The command named by the leading words of argv, and the arguments after them. */
function resolveCommand(argv: readonly string[]): { command: Command; rest: readonly string[] } {
  const [first, second] = argv;
  const one = commands.find((c) => c.name === first);
  if (one) return { command: one, rest: argv.slice(1) };
  const two = commands.find((c) => c.name === `${first} ${second}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const group = commands.filter((c) => c.name.startsWith(`${first} `));
  if (group.length > 0) {
    const subs = group.map((c) => c.name.split(' ')[1]).join('|');
    const message =
      second === undefined || second.startsWith('-')
        ? `${first} needs a subcommand: ${subs}`
        : `unknown command "${first} ${second}"`;
    throw new UsageError(message, `usage: portfolio ${first} ${subs} [options]`);
  }
  throw new UsageError(`unknown command "${first}"`, GENERAL_USAGE);
}

/** better-sqlite3 does not create the directory of a database file. */
function ensureSqliteDirectory(databaseUrl: string): void {
  if (!databaseUrl.startsWith('sqlite:')) return;
  const file = databaseUrl.replace(/^sqlite:(\/\/)?/, '');
  if (file === '' || file === ':memory:') return;
  mkdirSync(dirname(resolve(file)), { recursive: true });
}

async function dispatch(argv: readonly string[], io: Io): Promise<number> {
  const first = argv[0];
  if (first === undefined) throw new UsageError('no command given', GENERAL_USAGE);
  if (first === '--help' || first === '-h' || first === 'help') {
    io.out(help());
    return 0;
  }
  const groupHelp = commands.filter((c) => c.name.startsWith(`${first} `));
  if (groupHelp.length > 0 && (argv[1] === '--help' || argv[1] === '-h')) {
    io.out(`${groupHelp.map((c) => `${usageOf(c)}\n    ${c.summary}`).join('\n')}\n`);
    return 0;
  }

  const { command, rest } = resolveCommand(argv);
  const args = parseCommandArgs(rest, command.options, command.positionals ?? [], usageOf(command));
  if (args.flag('help')) {
    io.out(`${usageOf(command)}\n    ${command.summary}\n`);
    return 0;
  }

  const config = loadConfig(io.env);
  ensureSqliteDirectory(config.databaseUrl);
  const db = openDb(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    logger: createLogger(config.logLevel, { format: config.logFormat }),
  });
  try {
    const migrated = await migrateLatest(db);
    await command.run(
      { io, config, db, repos: createRepos(db), clock: systemClock, migrated, json: args.flag('json') },
      args,
    );
    return 0;
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
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`portfolio: ${err.message}\n${err.usage}\n`);
      return 2;
    }
    // AccountError, CliError, ConfigError and anything unexpected: one line for a person.
    const message = err instanceof Error ? err.message : String(err);
    io.err(`portfolio: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
    return 1;
  }
}
