import type { Knex } from 'knex';
import type { Clock } from '../core/clock.ts';
import type { Repos } from '../db/repos/index.ts';
import type { Config } from '../server/config.ts';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** What every command may use. */
export interface BaseContext {
  io: Io;
  config: Config;
  clock: Clock;
  /** `--json`: print exactly one JSON document on stdout. */
  json: boolean;
}

/** What a database command may use; the database is open (and migrated, unless it says otherwise). */
export interface CommandContext extends BaseContext {
  db: Knex;
  repos: Repos;
  /** Migrations this run applied before the command (none for a command that does not migrate). */
  migrated: string[];
}

/** One option of a command; `--json` and `--help` every command has besides. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** What it does, for `--help`. */
  description: string;
  /** How `--help` names a string option's value: `--firm <slug>`. */
  value?: string;
  required?: boolean;
  /** The only values a string option accepts. */
  choices?: readonly string[];
  /** A string option that must be a whole number in this range. */
  integer?: { min: number; max: number };
  /** Upper-case the value before checking `choices` (currency codes). */
  upperCase?: boolean;
}

interface CommandSpec {
  /** The words that select it: `users create`. */
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Positional arguments, all required, in order: name → what it is. */
  arguments?: Record<string, string>;
}

/** A command over the database, which is opened and, unless `migrate` is false, migrated first. */
export interface DatabaseCommand extends CommandSpec {
  /** False: the command sees the schema as it is (migrate decides itself whether to migrate). */
  migrate?: boolean;
  run(ctx: CommandContext, args: Args): Promise<void>;
}

/** A command on the database file itself (backup, restore): the database is not opened for it. */
export interface FileCommand extends CommandSpec {
  database: 'file';
  run(ctx: BaseContext, args: Args): Promise<void>;
}

export type Command = DatabaseCommand | FileCommand;

/** A parsed and checked command line: option values by their long name, then the positionals. */
export class Args {
  constructor(
    private readonly values: Record<string, string | boolean | undefined>,
    readonly positionals: readonly string[],
  ) {}

  string(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  /** A required string option; the parser has already checked that it is present. */
  need(name: string): string {
    const v = this.string(name);
    if (v === undefined) throw new Error(`--${name} was not parsed`);
    return v;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  int(name: string): number | undefined {
    const v = this.string(name);
    return v === undefined ? undefined : Number(v);
  }
}

export function defineCommand(command: DatabaseCommand): DatabaseCommand {
  return command;
}

export function defineFileCommand(command: Omit<FileCommand, 'database'>): FileCommand {
  return { ...command, database: 'file' };
}

/** Prints the JSON document under `--json`, else the lines for a person. */
export function output(ctx: BaseContext, json: unknown, human: () => string[]): void {
  if (ctx.json) ctx.io.out(`${JSON.stringify(json, null, 2)}\n`);
  else ctx.io.out(`${human().join('\n')}\n`);
}

/** Left-aligned columns with a header row; an empty list prints `empty` instead. */
export function table(header: string[], rows: string[][], empty: string): string[] {
  if (rows.length === 0) return [empty];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
