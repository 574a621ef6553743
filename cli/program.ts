// The command line on commander: one commander command per Command (`users create` under a `users`
// group), generated --help, and every parse failure turned into a UsageError (exit 2) with our wording.
import { Command as Commander, type CommanderError, Option } from 'commander';
import { Args, type Command, type OptionSpec } from './command.ts';
import { UsageError } from './errors.ts';

/** Every command has it besides its own options. */
const jsonOption: OptionSpec = {
  type: 'boolean',
  description: 'print one JSON document on stdout instead of lines for a person',
};

const GENERAL_USAGE = 'usage: portfolio <command> [options]; "portfolio --help" lists the commands';

const FOOTER = `
Every command reads DATABASE_URL (default sqlite:./data/portfolio.db) and migrates the database
first, except migrate --status, backup and restore. --json prints machine-readable output; "portfolio <command> --help" shows its options.
Exit status: 0 success, 1 failure (one line on stderr), 2 bad usage.`;

/** Where commander writes help (stdout); its own error lines are replaced by ours. */
export interface HelpOutput {
  out(text: string): void;
}

/** What the command line asks for: a command and its checked arguments. */
export interface Invocation {
  command: Command;
  args: Args;
}

function flags(name: string, spec: OptionSpec): string {
  return spec.type === 'boolean' ? `--${name}` : `--${name} <${spec.value ?? 'value'}>`;
}

/** The synopsis after the command's name: arguments, required options, then optional ones. */
function synopsis(command: Command): string {
  const options = Object.entries(command.options);
  return [
    ...Object.keys(command.arguments ?? {}).map((name) => `<${name}>`),
    ...options.filter(([, s]) => s.required).map(([n, s]) => flags(n, s)),
    ...options.filter(([, s]) => !s.required).map(([n, s]) => `[${flags(n, s)}]`),
    '[--json]',
  ].join(' ');
}

/** The usage line printed under a usage error. */
export function usageLine(command: Command): string {
  return `usage: portfolio ${command.name} ${synopsis(command)}`;
}

/** A short list of choices is shown in the help; a long one (currency codes) only in the error. */
function helpText(spec: OptionSpec): string {
  if (spec.choices && spec.choices.length <= 5) return `${spec.description} (${spec.choices.join(', ')})`;
  return spec.description;
}

/** Commander's message for a failed parse, in the words this command line has always used. */
function problem(err: CommanderError, cmd: Commander): string {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? '';
  const flag = quoted.match(/--[\w-]+/g)?.at(-1) ?? quoted;
  switch (err.code) {
    case 'commander.unknownOption': {
      // A group given an unknown word and an unknown option: the word is the problem.
      const word = cmd.commands.length > 0 ? cmd.args.find((a) => !a.startsWith('-')) : undefined;
      return word === undefined ? `unknown option ${quoted}` : unknownCommand(cmd, word);
    }
    case 'commander.optionMissingArgument':
      return `option ${flag} needs a value`;
    case 'commander.missingArgument':
      return `missing ${quoted}`;
    default:
      return err.message.replace(/^error: /, '');
  }
}

function unknownCommand(group: Commander, word: string): string {
  return `unknown command "${group.parent ? `${group.name()} ` : ''}${word}"`;
}

/** Settings every commander command here shares: quiet errors turned into UsageErrors, help on `out`. */
function configure(cmd: Commander, usage: string, output: HelpOutput): Commander {
  return cmd
    .configureOutput({ writeOut: (text) => output.out(text), writeErr: () => {}, outputError: () => {} })
    .showSuggestionAfterError(false)
    .allowExcessArguments(true)
    .helpOption('-h, --help', 'show this help')
    .exitOverride((err) => {
      // Help was asked for and printed: exit 0.
      if (err.exitCode === 0) throw err;
      throw new UsageError(problem(err, cmd), usage);
    });
}

/** Option values by long name, upper-cased and checked against `choices` and `integer`. */
function readArgs(command: Command, cmd: Commander, options: Map<string, Option>): Args {
  const usage = usageLine(command);
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of options) {
    const spec = command.options[name] ?? jsonOption;
    let v = cmd.getOptionValue(option.attributeName()) as string | boolean | undefined;
    // `--no-documents` is commander's negation of `documents`: given, it reads false.
    if (option.negate) v = v === false;
    // Checked here rather than by commander, so that an unknown option is reported first.
    if (v === undefined && spec.required) throw new UsageError(`missing required option --${name}`, usage);
    if (typeof v === 'string') {
      if (spec.upperCase) v = v.toUpperCase();
      if (spec.choices && !spec.choices.includes(v)) {
        throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')} (got ${v})`, usage);
      }
      if (spec.integer) {
        const { min, max } = spec.integer;
        const n = Number(v);
        if (!/^\d+$/.test(v) || n < min || n > max) {
          throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got ${v})`, usage);
        }
      }
    }
    values[name] = v;
  }
  const wanted = Object.keys(command.arguments ?? {}).length;
  const extra = cmd.args.slice(wanted);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra.join(' ')}`, usage);
  return new Args(values, cmd.args.slice(0, wanted));
}

/** The commander command of one Command; `found` receives what a successful parse selected. */
function leafCommand(
  command: Command,
  word: string,
  output: HelpOutput,
  found: (invocation: Invocation) => void,
): Commander {
  const cmd = configure(new Commander(word), usageLine(command), output)
    .description(command.summary)
    .usage(synopsis(command));
  for (const [name, description] of Object.entries(command.arguments ?? {}))
    cmd.argument(`<${name}>`, description);
  const options = new Map<string, Option>();
  for (const [name, spec] of Object.entries({ ...command.options, json: jsonOption })) {
    const option = new Option(flags(name, spec), helpText(spec));
    cmd.addOption(option);
    options.set(name, option);
  }
  cmd.action(() => found({ command, args: readArgs(command, cmd, options) }));
  return cmd;
}

/** The words of a command's name after the program's: `users create` → `users`, `create`. */
function fullName(cmd: Commander): string {
  const words: string[] = [];
  for (let c: Commander | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** A group that is only its subcommands (`users`): run alone, or with an unknown word, it is a usage error. */
function usageGroup(commands: readonly Command[], first: string, output: HelpOutput): Commander {
  const subs = commands.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.split(' ')[1]);
  const usage = `usage: portfolio ${first} ${subs.join('|')} [options]`;
  const g = configure(new Commander(first), usage, output)
    .description(`the ${first} commands: ${subs.join(', ')}`)
    .usage(`<${subs.join('|')}> [options]`)
    .helpCommand(false);
  g.action(() => {
    const word = g.args[0];
    throw new UsageError(
      word === undefined ? `${first} needs a subcommand: ${subs.join('|')}` : unknownCommand(g, word),
      usage,
    );
  });
  return g;
}

/** The `portfolio` program over every command, in the order `--help` lists them. */
export function buildProgram(
  commands: readonly Command[],
  output: HelpOutput,
  found: (invocation: Invocation) => void,
): Commander {
  const program = configure(new Commander('portfolio'), GENERAL_USAGE, output)
    .description('run and administer the portfolio data service')
    .usage('<command> [options]')
    .helpCommand('help [command]', 'show the help of a command')
    .addHelpText('after', FOOTER)
    // Needed by the groups that are commands themselves (see groupOf); the program has no options of its own.
    .enablePositionalOptions();
  const leaves: Commander[] = [];
  const groups = new Map<string, Commander>();
  /** The group of `first`: the bare command `first` when there is one (`outbox`), else a usage error. */
  const groupOf = (first: string): Commander => {
    const existing = groups.get(first);
    if (existing) return existing;
    const bare = commands.find((c) => c.name === first);
    // A bare command's own options come before a subcommand's name: `outbox show ID --json` is show's --json.
    const g = bare
      ? leafCommand(bare, first, output, found).enablePositionalOptions()
      : usageGroup(commands, first, output);
    if (bare) leaves.push(g);
    program.addCommand(g);
    groups.set(first, g);
    return g;
  };
  for (const command of commands) {
    const [first, second] = command.name.split(' ') as [string, string | undefined];
    if (second === undefined) {
      if (commands.some((c) => c.name.startsWith(`${first} `))) {
        groupOf(first);
        continue;
      }
      const leaf = leafCommand(command, first, output, found);
      program.addCommand(leaf);
      leaves.push(leaf);
      continue;
    }
    const leaf = leafCommand(command, second, output, found);
    groupOf(first).addCommand(leaf);
    leaves.push(leaf);
  }
  program.action(() => {
    const word = program.args[0];
    throw new UsageError(
      word === undefined ? 'no command given' : unknownCommand(program, word),
      GENERAL_USAGE,
    );
  });
  // The program's help lists every command by its full name, `users create` included.
  program.configureHelp({ visibleCommands: () => leaves, subcommandTerm: fullName });
  return program;
}

/** Parses one command's arguments alone (`portfolio import`'s FILE --firm S …), as the program would. */
export async function parseCommandArgs(command: Command, argv: readonly string[]): Promise<Args> {
  let args: Args | undefined;
  const leaf = leafCommand(command, command.name, { out: () => {} }, (found) => {
    args = found.args;
  });
  await leaf.parseAsync([...argv], { from: 'user' });
  if (!args) throw new UsageError('nothing to run (help was asked for)', usageLine(command));
  return args;
}
