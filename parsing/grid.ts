/** A typed cell: a number, a date (`{ date: 'YYYY-MM-DD' }`), text, or null for an empty cell. */
export type GridCell = number | string | { date: string } | null;

/** One sheet as typed cells: the rows with content, each by its zero-based number, cells dense by column. */
export interface SheetGrid {
  name: string;
  rows: { row: number; cells: GridCell[] }[];
}

/** Columns past this are left out of a grid (the text still holds them): no table is that wide. */
export const MAX_GRID_COLUMNS = 512;

/**
 * Collects typed grids sheet by sheet, up to a number of cells with content over the whole file (the
 * same cap as the text's); past it cells are dropped, never buffered.
 */
export class GridCollector {
  readonly grids: SheetGrid[] = [];
  private cells = 0;

  constructor(private readonly maxCells: number) {}

  sheet(name: string): void {
    this.grids.push({ name, rows: [] });
  }

  /** A row of cells by zero-based column; empty rows are not kept. */
  row(row: number, cells: readonly { column: number; value: GridCell }[]): void {
    const grid = this.grids[this.grids.length - 1];
    if (!grid) return;
    const dense: GridCell[] = [];
    for (const { column, value } of cells) {
      if (value === null || value === '' || column >= MAX_GRID_COLUMNS) continue;
      if (this.cells >= this.maxCells) break;
      this.cells++;
      while (dense.length < column) dense.push(null);
      dense[column] = value;
    }
    if (dense.length > 0) grid.rows.push({ row, cells: dense });
  }
}

const DAY_MS = 86_400_000;
/** Day 0 of Excel's 1900 date system as it counts (with its phantom 29 February 1900). */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const EXCEL_1904_EPOCH_MS = Date.UTC(1904, 0, 1);

/** An Excel date serial as a calendar date, or undefined when out of range. */
export function excelSerialDate(serial: number, date1904 = false): string | undefined {
  if (!Number.isFinite(serial) || serial < 1 || serial > 2_958_465) return undefined;
  const ms = (date1904 ? EXCEL_1904_EPOCH_MS : EXCEL_EPOCH_MS) + Math.floor(serial) * DAY_MS;
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whether a number format shows a date: built-in ids 14–22, 27–36, 45–47, or a custom code with d, m or y. */
export function isDateFormat(id: number, code: string | undefined): boolean {
  if ((id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47)) return true;
  if (code === undefined) return false;
  // Quoted text, escapes, colours and locales say nothing of the kind of value shown.
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[[^\]]*\]/g, '')
    .toLowerCase();
  if (/[dy]/.test(bare)) return true;
  // An m alone is a month; beside h or s it is minutes.
  return bare.includes('m') && !/[hs]/.test(bare);
}
