import { createRequire } from 'node:module';
import { type DestinationStream, type Logger as Pino, pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Logger, LogLevel } from '../core/logger.ts';

export type LogFormat = 'json' | 'pretty';

/** Field names whose values never reach a log line. */
const secretKeys = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'new_password',
  'current_password',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'pat',
  'secret',
  'client_secret',
  'code',
  'code_verifier',
  'assertion',
];

// Paths at the top and up to four levels down (pino redacts by path, not by name anywhere).
const redactPaths = secretKeys.flatMap((key) => {
  const leaf = /^\w+$/.test(key) ? `.${key}` : `["${key}"]`;
  return ['', '*', '*.*', '*.*.*', '*.*.*.*'].map((prefix) => `${prefix}${leaf}`.replace(/^\./, ''));
});

export interface LoggerOptions {
  format?: LogFormat;
  /** Where lines go; stderr unless given (tests capture here). */
  destination?: DestinationStream;
}

/** The pino instance behind one of our loggers, for the access log. */
const pinoOf = new WeakMap<Logger, Pino>();

function adapt(p: Pino): Logger {
  const logger: Logger = {
    debug: (msg, fields) => p.debug(fields ?? {}, msg),
    info: (msg, fields) => p.info(fields ?? {}, msg),
    warn: (msg, fields) => p.warn(fields ?? {}, msg),
    error: (msg, fields) => p.error(fields ?? {}, msg),
    child: (fields) => adapt(p.child(fields)),
  };
  pinoOf.set(logger, p);
  return logger;
}

/** pino-pretty, loaded only when asked for: every command line run would otherwise pay for it. */
function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({ destination: 2, sync: true, translateTime: 'SYS:HH:MM:ss.l' });
}

/** Builds the pino instance: JSON lines (or pretty lines for people) on stderr, secrets redacted. */
export function createPino(level: LogLevel, options: LoggerOptions = {}): Pino {
  const destination =
    options.destination ??
    (options.format === 'pretty' ? prettyStream() : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths, censor: '[redacted]' },
    },
    destination,
  );
}

/** The Logger every layer uses, over pino. */
export function createLogger(level: LogLevel, options: LoggerOptions = {}): Logger {
  return adapt(createPino(level, options));
}

/** The pino behind `logger` when it is one of ours; a silent one for any other Logger. */
export function pinoFor(logger: Logger): Pino {
  return pinoOf.get(logger) ?? pino({ level: 'silent' });
}
