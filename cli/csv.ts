import { CsvError, parse } from 'csv-parse/sync';

export interface CsvRecord {
  /** The 1-based line the record starts on. */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

interface ParsedRow {
  record: string[];
  info: { lines: number };
}

/** What to tell a person who edits the file, for each syntax error of the parser. */
const advice: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote must be followed by a comma or the end of the line',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field; quote the whole field and double the quote',
};

/** The line of the first record after `bytes` bytes of complete records, blank lines skipped. */
function recordStartLine(text: string, bytes: number): number {
  const utf8 = Buffer.from(text, 'utf8');
  const done = utf8.subarray(0, bytes).toString('utf8');
  const blank =
    utf8
      .subarray(bytes)
      .toString('utf8')
      .match(/^(?:\r?\n)*/)?.[0] ?? '';
  return 1 + (done.match(/\n/g)?.length ?? 0) + (blank.match(/\n/g)?.length ?? 0);
}

/** Every record of an RFC 4180 text (CRLF or LF line ends, a byte order mark allowed), blank lines left out. */
export function parseCsv(text: string): CsvRecord[] {
  let rows: ParsedRow[];
  try {
    // With `info`, each row comes as its fields and where it ended; the library types only plain rows.
    rows = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n'],
      info: true,
    }) as unknown as ParsedRow[];
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const at = err as CsvError & { lines?: number; bytes_records?: number };
    // An unclosed quote runs to the end of the text: name the line its record starts on instead.
    const line =
      err.code === 'CSV_QUOTE_NOT_CLOSED' && at.bytes_records !== undefined
        ? recordStartLine(text, at.bytes_records)
        : (at.lines ?? 1);
    throw new CsvSyntaxError(line, advice[err.code] ?? err.message);
  }
  // The parser reports the line a record ends on; line breaks inside its quoted fields move the start back.
  return rows.map(({ record, info }) => ({
    line: info.lines - record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0),
    fields: record,
  }));
}
