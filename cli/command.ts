import type { Knex } from 'knex';
import type { Clock } from '../core/clock.ts';
import type { Repos } from '../db/repos/index.ts';
import type { Config } from '../server/config.ts';
import type { Args, OptionSpec } from './args.ts';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** What a command may use; the database is open and migrated before `run` is called. */
export interface CommandContext {
  io: Io;
  config: Config;
  db: Knex;
  repos: Repos;
  clock: Clock;
  /** Migrations this run applied before the command (every command migrates first). */
  migrated: string[];
  /** `--json`: print exactly one JSON document on stdout. */
  json: boolean;
}

export interface Command {
  /** The words that select it: `users create`. */
  name: string;
  /** Everything after the name in the usage line. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  positionals?: readonly string[];
  run(ctx: CommandContext, args: Args): Promise<void>;
}

export function defineCommand(command: Command): Command {
  return command;
}

/** Prints the JSON document under `--json`, else the lines for a person. */
export function output(ctx: CommandContext, json: unknown, human: () => string[]): void {
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
