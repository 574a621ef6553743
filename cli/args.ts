import { parseArgs } from 'node:util';

export interface OptionSpec {
  type: 'string' | 'boolean';
  required?: boolean;
  /** The only values a string option accepts. */
  choices?: readonly string[];
  /** A string option that must be a whole number in this range. */
  integer?: { min: number; max: number };
  /** Upper-case the value before checking `choices` (currency codes). */
  upperCase?: boolean;
}

/** Bad usage: the command line itself is wrong (exit 2, with the usage line). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An ordinary failure whose message is meant for a person (exit 1). */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** Every command accepts these. */
export const commonOptions = {
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies Record<string, OptionSpec>;

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

/**
 * Parses one command's arguments strictly: unknown flags, missing values, missing required flags,
 * values outside `choices` or `integer`, and wrong positional counts are all UsageErrors.
 */
export function parseCommandArgs(
  argv: readonly string[],
  options: Record<string, OptionSpec>,
  positionals: readonly string[],
  usage: string,
): Args {
  const all: Record<string, OptionSpec> = { ...commonOptions, ...options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(all).map(([name, spec]) => [
          name,
          { type: spec.type, ...(name === 'help' ? { short: 'h' } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(parseErrorMessage(err), usage);
  }
  const values = { ...parsed.values } as Record<string, string | boolean | undefined>;
  if (values.help) return new Args(values, parsed.positionals);

  for (const [name, spec] of Object.entries(options)) {
    let v = values[name];
    if (v === undefined) {
      if (spec.required) throw new UsageError(`missing required option --${name}`, usage);
      continue;
    }
    if (typeof v !== 'string') continue;
    if (spec.upperCase) {
      v = v.toUpperCase();
      values[name] = v;
    }
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
  if (parsed.positionals.length < positionals.length) {
    throw new UsageError(`missing ${positionals.slice(parsed.positionals.length).join(' ')}`, usage);
  }
  if (parsed.positionals.length > positionals.length) {
    const extra = parsed.positionals.slice(positionals.length);
    throw new UsageError(`unexpected argument ${extra.join(' ')}`, usage);
  }
  return new Args(values, parsed.positionals);
}

/** node:util's messages are long and mention internals; keep the part a person needs. */
function parseErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const needsValue = /Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message);
  if (needsValue) return `option ${needsValue[1]} needs a value`;
  const noValue = /Option '(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `option ${noValue[1]} does not take a value`;
  return message.split('\n')[0] ?? message;
}
