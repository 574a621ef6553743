// A small RFC 4180 reader: comma-separated fields, CRLF or LF line ends, fields in double quotes may
// hold commas, quotes (doubled) and line breaks.

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

/** Every record of a CSV text, blank lines left out. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  while (i < input.length) {
    const start = line;
    const fields: string[] = [];
    // One record: fields until a line end or the end of the text.
    for (;;) {
      let field = '';
      if (input[i] === '"') {
        i++;
        for (;;) {
          if (i >= input.length) throw new CsvSyntaxError(start, 'a quoted field is not closed');
          const c = input[i]!;
          if (c === '"') {
            if (input[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        const next = input[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvSyntaxError(
            line,
            'a closing quote must be followed by a comma or the end of the line',
          );
        }
      } else {
        while (i < input.length && input[i] !== ',' && input[i] !== '\n' && input[i] !== '\r') {
          if (input[i] === '"') {
            throw new CsvSyntaxError(
              line,
              'a quote inside an unquoted field; quote the whole field and double the quote',
            );
          }
          field += input[i];
          i++;
        }
      }
      fields.push(field);
      if (input[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (input[i] === '\r') i++;
    if (input[i] === '\n') i++;
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
    line++;
  }
  return records;
}
