import type { ZipReader } from '../core/zip.ts';
import { type GridCell, type GridCollector, MAX_GRID_COLUMNS } from './grid.ts';
import { ODF_OFFICE, ODF_TABLE, ODF_TEXT } from './namespaces.ts';
import { flat, MAX_CELL_CHARS, type SheetText, Unparseable } from './output.ts';
import { readXml, type XmlElement } from './xml.ts';

/** A run of equal cells in an OpenDocument table row: what the cell holds and how often it repeats. */
export interface OdsCell {
  /** The cell's text, its paragraphs, spaces, tabs and line breaks each a space; cut at 32,767 characters. */
  text: string;
  /** `office:value-type` (float, percentage, currency, date, time, boolean, string), or '' for none. */
  type: string;
  /** The typed value as written (`office:value`, `date-value`, `time-value` or `boolean-value`). */
  value: string | undefined;
  /** `table:style-name`. */
  style: string | undefined;
  /** `table:number-columns-repeated`. */
  repeat: number;
}

/** What reads the rows of an OpenDocument spreadsheet. */
export interface OdsRows {
  table(name: string): void;
  /** A row of cell runs, repeated `repeat` times (`table:number-rows-repeated`). */
  row(cells: OdsCell[], repeat: number): void;
  /** Cells with content still taken: a row holding more is handed over at once, in part. */
  readonly cellsLeft: number;
}

const VALUE_ATTRIBUTES: Record<string, string> = {
  date: 'date-value',
  time: 'time-value',
  boolean: 'boolean-value',
};

function repeatOf(element: XmlElement, name: string): number {
  const n = Number(element.attribute(ODF_TABLE, name) ?? 1);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

function cellOf(element: XmlElement): OdsCell {
  const type = element.attribute(ODF_OFFICE, 'value-type') ?? '';
  return {
    text: '',
    type,
    value: element.attribute(ODF_OFFICE, VALUE_ATTRIBUTES[type] ?? 'value'),
    style: element.attribute(ODF_TABLE, 'style-name'),
    repeat: repeatOf(element, 'number-columns-repeated'),
  };
}

const isCell = (uri: string, local: string) =>
  uri === ODF_TABLE && (local === 'table-cell' || local === 'covered-table-cell');

/**
 * The rows of an OpenDocument spreadsheet's content.xml, streamed, cell runs kept as runs (a row of
 * 16,384 repeated cells is one run); consecutive empty cells are merged into one run.
 */
export function readOdsRows(zip: ZipReader, rows: OdsRows): void {
  const content = zip.entry('content.xml');
  if (!content) throw new Unparseable('an OpenDocument file without content');
  let runs: OdsCell[] | undefined;
  let withContent = 0;
  let rowRepeat = 1;
  let cell: OdsCell | undefined;
  let tables = 0;
  const push = (run: OdsCell) => {
    if (!runs) return;
    const last = runs[runs.length - 1];
    const empty = run.text === '' && run.value === undefined;
    if (empty && last?.text === '' && last.value === undefined) last.repeat += run.repeat;
    else runs.push(run);
    if (!empty) withContent += run.repeat;
    if (withContent > rows.cellsLeft) {
      rows.row(runs, 1);
      runs = [];
      withContent = 0;
    }
  };
  readXml(zip, content, {
    open(element) {
      const { uri, local } = element;
      if (uri === ODF_TABLE && local === 'table') {
        if (element.selfClosing) return;
        tables++;
        rows.table(element.attribute(ODF_TABLE, 'name') ?? `Sheet ${tables}`);
      } else if (uri === ODF_TABLE && local === 'table-row') {
        runs = [];
        withContent = 0;
        rowRepeat = repeatOf(element, 'number-rows-repeated');
      } else if (isCell(uri, local)) cell = cellOf(element);
      else if (cell !== undefined && uri === ODF_TEXT && cell.text.length < MAX_CELL_CHARS) {
        // A new paragraph, a space run, a tab or a line break inside a cell: a space.
        if (local === 's' || local === 'tab' || local === 'line-break') cell.text += ' ';
        else if (local === 'p' && cell.text !== '') cell.text += ' ';
      }
    },
    close({ uri, local }) {
      if (uri === ODF_TABLE && local === 'table-row' && runs) {
        rows.row(runs, rowRepeat);
        runs = undefined;
      } else if (isCell(uri, local) && cell !== undefined) {
        cell.text = flat(cell.text);
        push(cell);
        cell = undefined;
      }
    },
    text(t) {
      if (cell !== undefined && cell.text.length < MAX_CELL_CHARS) cell.text += t;
    },
  });
}

/** Repeats above this are what spreadsheet programs write to pad a sheet; they are cut to it. */
const MAX_REPEAT = 1000;

/** A row of runs written `times` times as text; cells are materialised up to the output's cap. */
function writeRow(runs: OdsCell[], times: number, out: SheetText): void {
  const cells: { column: number; text: string }[] = [];
  let column = 0;
  for (const run of runs) {
    if (run.text !== '') {
      const copies = Math.min(run.repeat, MAX_REPEAT);
      for (let i = 0; i < copies && cells.length <= out.cellsLeft; i++)
        cells.push({ column: column + i, text: run.text });
    }
    column += run.repeat;
  }
  if (cells.length === 0) {
    out.emptyRow();
    return;
  }
  // Each write adds cells, so the total cap ends a long repeat.
  for (let i = 0; i < Math.min(times, MAX_REPEAT); i++) out.row(cells);
}

/** A run's typed value: numbers for float, percentage and currency, dates, text otherwise. */
function typedRun(run: OdsCell): GridCell {
  if (run.type === 'float' || run.type === 'percentage' || run.type === 'currency') {
    const n = Number(run.value);
    return run.value !== undefined && Number.isFinite(n) ? n : run.text || null;
  }
  if (run.type === 'date' && run.value && /^\d{4}-\d{2}-\d{2}/.test(run.value))
    return { date: run.value.slice(0, 10) };
  return run.text === '' ? null : run.text;
}

/** A row of runs written `times` times into a grid, from row number `row`; repeats bounded as in text. */
function gridRow(runs: OdsCell[], times: number, row: number, grids: GridCollector): void {
  const cells: { column: number; value: GridCell }[] = [];
  let column = 0;
  for (const run of runs) {
    const value = typedRun(run);
    if (value !== null)
      for (let i = 0; i < Math.min(run.repeat, MAX_REPEAT) && column + i < MAX_GRID_COLUMNS; i++)
        cells.push({ column: column + i, value });
    column += run.repeat;
  }
  if (cells.length === 0) return;
  for (let i = 0; i < Math.min(times, MAX_REPEAT); i++) grids.row(row + i, cells);
}

/** An OpenDocument spreadsheet as text, and as typed grids when given; repeats are bounded by the caps. */
export function readOds(
  zip: ZipReader,
  out: SheetText,
  found: { pages: number | null },
  grids?: GridCollector,
): void {
  let row = 0;
  readOdsRows(zip, {
    table(name) {
      found.pages = out.sheetCount + 1;
      out.sheet(name);
      grids?.sheet(name);
      row = 0;
    },
    row: (runs, repeat) => {
      if (grids) gridRow(runs, repeat, row, grids);
      row += repeat;
      writeRow(runs, repeat, out);
    },
    get cellsLeft() {
      return out.cellsLeft;
    },
  });
}
