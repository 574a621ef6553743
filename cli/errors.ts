/** Bad usage: the command line itself is wrong (exit 2, with the usage line of the command). */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage line to print; the failing command's own when left out. */
    readonly usage?: string,
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
