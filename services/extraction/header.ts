import type { GridCell } from '../../parsing/grid.ts';
import { figureOf } from './figures.ts';
import { type Kind, kindOf, monthEnd, monthNamed, type Period, periodOf } from './periods.ts';
import { synonymOf } from './synonyms.ts';

type Dense = GridCell[][];

/** A column of figures of one period, of one kind. */
export interface Column {
  period: Period;
  kind: Kind;
  /** Whether the header says the kind (`Actual`, `2026B`, a `Budget` block); else it is actual unless the sheet's name says otherwise. */
  stated: boolean;
  /** Below 1 where the period was inferred (a year from the title): its figures then need a person's look. */
  confidence?: number;
}

/** The header of a table: its period columns, and the rows it spans (a period row, a row of kinds under it). */
export interface Header {
  row: number;
  /** The last row of the header: the row of kinds under the periods, when there is one. */
  end: number;
  columns: Map<number, Column>;
}

/**
 * Words that make a column something other than a period's figures, wherever they stand over it: year to
 * date, totals, variances, averages, growth rates, comments.
 */
const NOT_FIGURES =
  /\b(ytd|qtd|mtd|year to date|to date|totals?|var|variance|variances|change|chg|movement|mvmt|diff|difference|cagr|ltm|ttm|l12m|avg|average|cumulative|comments?|commentary|notes?|explanation|yoy|mom|qoq|growth|run ?rate)\b|%|Δ/i;
/** Words that, in a column's own header cells, compare rather than report (`Actual vs budget`, `B/(W)`). */
const COMPARING = /\bvs\.?\b|\bv\b|\bb\/\(?w\)?|\bfav\b|\badv\b|\bof rev/i;

const text = (cell: GridCell | undefined): string => (typeof cell === 'string' ? cell.trim() : '');

/** For each column of a row, the nearest non-empty cell at or left of it (from column 1): a merged heading's reach. */
function carriedCells(row: GridCell[] | undefined, width: number): GridCell[] {
  const out: GridCell[] = new Array(width).fill(null);
  let last: GridCell = null;
  for (let c = 1; c < width; c++) {
    const cell = row?.[c];
    if (cell !== null && cell !== undefined && cell !== '') last = cell;
    out[c] = last;
  }
  return out;
}

/**
 * The kind a block label above the header names: a label is a few words (`Budget`, `Actual YTD`,
 * `Full-year plan`); a sentence above the table (a PDF's prose, a note) names none, whatever words it uses.
 */
function blockKind(label: string): Kind | undefined {
  return label.length <= 40 && label.split(/\s+/).length <= 4 ? kindOf(label) : undefined;
}

/** A row of labels under a period row: kinds (`Actual`, `Budget`), comparisons (`Var`, `%`), no figures. */
function isLabelRow(row: GridCell[] | undefined): boolean {
  if (!row) return false;
  let labels = 0;
  let words = 0;
  for (let c = 1; c < row.length; c++) {
    const cell = row[c];
    if (cell === null || cell === undefined || cell === '') continue;
    if (typeof cell !== 'string' || figureOf(cell) !== undefined) return false;
    const word = Boolean(kindOf(cell) || NOT_FIGURES.test(cell) || COMPARING.test(cell));
    if (word || periodOf(cell)) labels++;
    if (word) words++;
  }
  return labels >= 2 && words >= 1;
}

/** Point dates (date cells, `31 Mar 2026`) three or twelve months apart are quarter or year ends. */
function cadenceOfPoints(columns: Map<number, Column>): void {
  const points = [...columns.values()].filter((c) => c.period.point);
  const ends = [...new Set(points.map((c) => c.period.end))].sort();
  if (ends.length < 2) return;
  const months = ends.map((e) => Number(e.slice(0, 4)) * 12 + Number(e.slice(5, 7)));
  const gaps = new Set(months.slice(1).map((m, i) => m - months[i]!));
  const cadence =
    gaps.size === 1 && gaps.has(3) ? 'quarter' : gaps.size === 1 && gaps.has(12) ? 'year' : undefined;
  if (cadence) for (const c of points) c.period = { end: c.period.end, cadence };
}

/** The month ends a period spans. */
function monthsOf(period: Period): string[] {
  const span = period.cadence === 'year' ? 12 : period.cadence === 'quarter' ? 3 : 1;
  const [y, m] = period.end.split('-').map(Number);
  return Array.from({ length: span }, (_, i) => monthEnd(y!, m! - i));
}

/** A quarter or year whose every month finer columns of the same kind show is their total: not read. */
function dropTotals(columns: Map<number, Column>): void {
  const shown = { month: new Set<string>(), quarter: new Set<string>() };
  for (const { period, kind } of columns.values())
    if (period.cadence !== 'year')
      for (const m of monthsOf(period)) shown[period.cadence].add(`${kind}|${m}`);
  for (const [c, { period, kind }] of columns) {
    const finer =
      period.cadence === 'year'
        ? [shown.month, shown.quarter]
        : period.cadence === 'quarter'
          ? [shown.month]
          : [];
    if (finer.some((set) => monthsOf(period).every((m) => set.has(`${kind}|${m}`)))) columns.delete(c);
  }
}

/** Years given as numbers count only as a run (2023, 2024, 2025): a row of figures can hold 2000 twice. */
function plausible(row: GridCell[], columns: Map<number, Column>): boolean {
  const label = text(row[0]);
  if (label && synonymOf(label)) return false;
  const years = [...columns.keys()].filter((c) => typeof row[c] === 'number').map((c) => row[c] as number);
  if (years.length === 0) return true;
  const steps = years.slice(1).map((y, i) => Math.abs(y - years[i]!));
  return steps.every((s) => s === 1);
}

/** Whether a cell could name a period: a date, a year, text with a digit that is no figure (`(1,234)`) but for a year. */
function mayBePeriod(cell: GridCell | undefined): boolean {
  if (cell === null || cell === undefined) return false;
  if (typeof cell === 'object') return true;
  if (typeof cell === 'number') return Number.isInteger(cell) && cell >= 1990 && cell <= 2100;
  return /\d/.test(cell) && (figureOf(cell) === undefined || /^(19|20)\d\d$/.test(cell.trim()));
}

/** Whether a row could head a table: two cells that could name periods, or one over a row of kinds. */
function mayHoldPeriods(rows: Dense, r: number): boolean {
  let candidates = 0;
  const row = rows[r]!;
  for (let c = 1; c < row.length && candidates < 2; c++) if (mayBePeriod(row[c])) candidates++;
  return candidates >= 2 || (candidates === 1 && isLabelRow(rows[r + 1]));
}

/**
 * Periods of one kind and cadence run one way, oldest first or newest first, with at most one turn (a
 * prior-year column after the year's quarters); a row that jumps back and forth is no header.
 */
function ordered(columns: Map<number, Column>): boolean {
  const runs = new Map<string, string[]>();
  for (const [, { period, kind }] of [...columns].sort(([a], [b]) => a - b)) {
    const key = `${kind}|${period.cadence}`;
    runs.set(key, [...(runs.get(key) ?? []), period.end]);
  }
  return [...runs.values()].every((ends) => {
    const steps = ends.slice(1).map((e, i) => Math.sign(e.localeCompare(ends[i]!)));
    if (steps.includes(0)) return false;
    return steps.filter((d, i) => i > 0 && d !== steps[i - 1]).length <= 1;
  });
}

/**
 * A row of month names with no year (`Jan … Dec`, `Januari … Desember`) in calendar order, under a title
 * that names one year (`Budget 2022`): the months of that year. Any other row as it is.
 */
function withTitleYear(rows: Dense, r: number): GridCell[] {
  const row = rows[r]!;
  const months = row.map((cell, c) =>
    c > 0 && typeof cell === 'string' && /^\p{L}+\.?$/u.test(cell.trim())
      ? monthNamed(cell.trim().toLowerCase().replace('.', ''))
      : 0,
  );
  const named = months.filter(Boolean);
  if (named.length < 3 || named.some((m, i) => i > 0 && m <= named[i - 1]!)) return row;
  const years = new Set(
    rows
      .slice(Math.max(0, r - 6), r)
      .flat()
      .flatMap((cell) => (typeof cell === 'string' ? (cell.match(/\b(19|20)\d\d\b/g) ?? []) : [])),
  );
  if (years.size !== 1) return row;
  const [year] = years;
  return row.map((cell, c) => (months[c] ? `${cell} ${year}` : cell));
}

/**
 * The header whose period row is `row` (row `r` of the sheet, or it with a title's year), with a row of
 * kinds under it when there is one; undefined when none.
 */
function headerAt(rows: Dense, r: number, row: GridCell[], fyEndMonth: number): Header | undefined {
  // Headings repeat across columns (a merged block's text, the same month in Actual and Budget): each text is read once.
  const known = new Map<GridCell, Period | undefined>();
  const periodIn = (cell: GridCell | undefined): Period | undefined => {
    if (cell === null || cell === undefined || typeof cell === 'object')
      return periodOf(cell ?? null, fyEndMonth);
    if (!known.has(cell)) known.set(cell, periodOf(cell, fyEndMonth));
    return known.get(cell);
  };
  const words = new Map<string, { excluded: boolean; block: Kind | undefined }>();
  const wordsIn = (t: string) => {
    let found = words.get(t);
    if (!found) {
      found = {
        excluded: t !== '' && NOT_FIGURES.test(t) && !periodIn(t),
        block: t ? blockKind(t) : undefined,
      };
      words.set(t, found);
    }
    return found;
  };
  const under = isLabelRow(rows[r + 1]) ? rows[r + 1] : undefined;
  const columns = new Map<number, Column>();
  const seen = new Set<string>();
  const width = Math.max(row.length, under?.length ?? 0);
  const groups = carriedCells(row, width);
  const blocks = [r - 1, r - 2, r - 3].filter((k) => k >= 0).map((k) => carriedCells(rows[k], width));
  for (let c = 1; c < width; c++) {
    const own = [text(row[c]), text(under?.[c])].filter(Boolean);
    // Under a row of kinds, a period heads the columns to its right (a merged cell) until the next heading.
    const group = under && text(under[c]) ? groups[c]! : row[c];
    const period =
      periodIn(under?.[c]) ?? periodIn(row[c]) ?? (under && text(under[c]) ? periodIn(group) : undefined);
    if (!period) continue;
    const above = blocks.map((block) => text(block[c]));
    if (own.some((t) => NOT_FIGURES.test(t) || COMPARING.test(t))) continue;
    if ([text(group), ...above].some((t) => wordsIn(t).excluded)) continue;
    const stated =
      own.map((t) => kindOf(t)).find(Boolean) ??
      above.map((t) => wordsIn(t).block).find(Boolean) ??
      (typeof group === 'string' ? wordsIn(group.trim()).block : undefined);
    const kind = stated ?? 'actual';
    const key = `${period.end}|${period.cadence}|${kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    columns.set(c, {
      period,
      kind,
      stated: stated !== undefined,
      ...(row !== rows[r] ? { confidence: 0.8 } : {}),
    });
  }
  if (columns.size < 2 || !plausible(row, columns) || !ordered(columns)) return undefined;
  cadenceOfPoints(columns);
  dropTotals(columns);
  return columns.size >= 1 ? { row: r, end: under ? r + 1 : r, columns } : undefined;
}

/**
 * Rows of a sheet read as a possible header, at most: a sheet whose every row could name periods (a
 * crafted one, 200,000 cells of `Jan-26`) costs the server no more than the first of them.
 */
const MAX_HEADER_ROWS_TRIED = 40;

/**
 * The tables of a sheet, top to bottom: each header with the rows under it until the next header. Of
 * rows that could head the same table, the one with the most period columns does.
 */
export function findHeaders(rows: Dense, fyEndMonth: number): Header[] {
  const headers: Header[] = [];
  let tried = 0;
  for (let r = 0; r < rows.length && tried < MAX_HEADER_ROWS_TRIED; r++) {
    const row = withTitleYear(rows, r);
    if (row === rows[r] && !mayHoldPeriods(rows, r)) continue;
    tried++;
    const header = headerAt(rows, r, row, fyEndMonth);
    if (!header) continue;
    const last = headers[headers.length - 1];
    // A header straight under another (periods, then the same periods spelled again) is one header.
    if (last && r <= last.end + 1) {
      if (header.columns.size > last.columns.size) headers[headers.length - 1] = header;
      continue;
    }
    headers.push(header);
  }
  return headers;
}
