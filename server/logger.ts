import { type Logger, type LogLevel, LOG_LEVELS as levels } from '../core/logger.ts';

// Field names whose values never reach a log line, whatever the caller passes.
const secretKey = /pass|secret|token|authorization|cookie|code_verifier|^code$/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = secretKey.test(k) ? '[redacted]' : v;
  return out;
}

/** One JSON object a line on stderr. */
export function createLogger(
  level: LogLevel,
  base: Record<string, unknown> = {},
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const min = levels[level];
  const log = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (levels[lvl] < min) return;
    const entry = { time: new Date().toISOString(), level: lvl, msg, ...redact({ ...base, ...fields }) };
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}
