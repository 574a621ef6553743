import { CsvError, parse } from 'csv-parse/sync';
import type { GridCell, GridCollector } from './grid.ts';
import { Unparseable } from './output.ts';

/** A plain decimal as written in a CSV file (`1234`, `-12.5`); anything else stays text for the mapper. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function typed(text: string): GridCell {
  const t = text.trim();
  if (t === '') return null;
  if (PLAIN_NUMBER.test(t) && t.length <= 20) return Number(t);
  if (ISO_DATE.test(t)) return { date: t };
  return t;
}

/** The separator the first line uses most: comma, semicolon or tab. */
function delimiterOf(text: string): string {
  const line = text.slice(0, Math.min(text.length, 4096)).split('\n', 1)[0] ?? '';
  let best = ',';
  let most = -1;
  for (const d of [',', ';', '\t']) {
    const n = line.split(d).length;
    if (n > most) {
      most = n;
      best = d;
    }
  }
  return best;
}

/** A CSV file's rows as one typed grid named after the file; the collector's cap bounds the cells. */
export function readCsvGrid(text: string, name: string, grids: GridCollector): void {
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: delimiterOf(text),
      relax_column_count: true,
      relax_quotes: true,
      bom: true,
      skip_empty_lines: false,
      max_record_size: 1024 * 1024,
    }) as string[][];
  } catch (err) {
    if (err instanceof CsvError) throw new Unparseable(`a CSV file that cannot be read: ${err.message}`);
    throw err;
  }
  grids.sheet(name);
  records.forEach((record, row) => {
    grids.row(
      row,
      record.map((text, column) => ({ column, value: typed(text) })),
    );
  });
}
