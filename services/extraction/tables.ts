import type { GridCell, SheetGrid } from '../../parsing/grid.ts';
import { COST_CATEGORIES, FLOWS, MONETARY, RATIOS } from './category-kinds.ts';
import { figureOf } from './figures.ts';
import { findHeaders, type Header } from './header.ts';
import { type Kind, kindOf, type Period } from './periods.ts';
import { isBareTotal, normalizeLabel, synonymMatch, synonymOf } from './synonyms.ts';
import { titledHeader } from './titled.ts';
import { type Notes, notesOf } from './units.ts';

/** What a row label maps to: a standard category or a custom metric. */
export type Target = { category: string } | { custom_metric_id: string };

export interface ExtractionContext {
  /** The month (1–12) the company's fiscal year ends in. */
  fyEndMonth: number;
  /** The company's currency, used when the sheet names none. */
  currency: string | null;
  customMetrics: readonly { id: string; name: string }[];
  /** Labels confirmed before for this company, by normalised label. */
  remembered: ReadonlyMap<string, Target>;
  /** Today, as YYYY-MM-DD: a period ending after it has no actuals yet (a plan's later years are forecasts). */
  today?: string;
}

export interface Proposal {
  sheet: string;
  /** The line of the sheet the label is on, one-based: its row, or its column where the periods run down. */
  row: number;
  /** The cell the value came from, as `B7`. */
  cell: string;
  row_label: string;
  target: Target;
  date: string;
  cadence: Period['cadence'];
  /** The value after units and sign, as a decimal string. */
  value: string;
  currency: string | null;
  kind: 'actual' | 'budget';
  /** 0–1; 0.9 and above is high. */
  confidence: number;
}

/** A figure of a row that could not be mapped: scaled by the sheet's units, signed as the sheet shows it. */
export interface UnmappedFigure {
  cell: string;
  date: string;
  cadence: Period['cadence'];
  value: string;
  currency: string | null;
  kind: 'actual' | 'budget';
}

export interface UnmappedRow {
  sheet: string;
  /** One-based, as the spreadsheet shows it (its column, where the periods run down). */
  row: number;
  label: string;
  /** Its figures, so that a person who names the row's metric can confirm them. */
  figures: UnmappedFigure[];
}

export interface Extraction {
  proposals: Proposal[];
  unmapped: UnmappedRow[];
}

export const HIGH_CONFIDENCE = 0.9;

type Dense = GridCell[][];

function dense(grid: SheetGrid): Dense {
  const rows: Dense = [];
  for (const { row, cells } of grid.rows) {
    while (rows.length < row) rows.push([]);
    rows[row] = cells;
  }
  return rows;
}

function transpose(rows: Dense): Dense {
  const width = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? null));
}

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** A cell that says a row's units, not what it is (`₹ Cr`, `%`, `USD k`, `months`): a Unit column's. */
const UNIT_CELL =
  /^(?:[₹$€£%#]|x|months?|mths|days|count|no\.?|ratio|pct|(?:usd|eur|gbp|inr|sek|nok|dkk|chf|aud|cad|sgd|jpy|cny|hkd|nzd|zar|aed)(?:\s?(?:k|m|mn|cr|'000|000s?))?|[₹$€£]\s?(?:k|m|mn|bn|cr|crores?|lakhs?|l|'000))$/i;

/**
 * The label of a row: its last text cell before the first period column that is not a unit; with the
 * unit, when a Unit column gives one (`ARR | ₹ Cr | …`), as the row's own units.
 */
function labelOf(row: GridCell[], firstColumn: number): { label: string; unit?: string } | undefined {
  let unit: string | undefined;
  for (let c = Math.min(firstColumn, row.length) - 1; c >= 0; c--) {
    const cell = row[c];
    if (typeof cell !== 'string' || cell.trim() === '' || figureOf(cell) !== undefined) continue;
    if (c > 0 && UNIT_CELL.test(cell.trim())) {
      unit ??= cell.trim();
      continue;
    }
    return { label: cell.trim(), ...(unit ? { unit } : {}) };
  }
  return undefined;
}

const PERCENT = /%|percent|pct/i;

/**
 * What a row maps to, and the factor its figures take: a ratio row written in percent (`45.2`) is divided
 * by 100, and a `Gross margin` row of amounts is the gross profit, as many packs call it.
 */
function targetOf(
  label: string,
  figures: readonly [number, number][],
  context: ExtractionContext,
  /** Ratio categories a row labelled in percent gives in the same table (`Gross margin %`). */
  percentRows: ReadonlySet<string> = new Set(),
): { target: Target; confidence: number; factor: number } | undefined {
  const key = normalizeLabel(label);
  const remembered = context.remembered.get(key);
  if (remembered) return { target: remembered, confidence: 0.99, factor: 1 };
  const custom = context.customMetrics.find((m) => normalizeLabel(m.name) === key);
  if (custom) return { target: { custom_metric_id: custom.id }, confidence: 0.95, factor: 1 };
  const match = synonymMatch(label);
  if (!match) return undefined;
  const { category } = match;
  // A share (`Churn (% of MRR)`) is no amount of a money category.
  if (MONETARY.has(category) && /%/.test(label)) return undefined;
  // A label found only once words around it were set aside (`3. Total for Cost of Sales EUR k`) is a good guess, not a sure one.
  const sure = match.exact;
  if (RATIOS.has(category)) {
    // `Gross margin` beside `Gross margin %` is the amount, however small its figures in crores.
    const twin = category === 'gross_margin' && !PERCENT.test(label) && percentRows.has(category);
    if (twin) return { target: { category: 'gross_profit' }, confidence: 0.85, factor: 1 };
    const large = figures.filter(([, v]) => Math.abs(v) > 1.5).length > figures.length / 2;
    if (!large) return { target: { category }, confidence: sure ? 0.95 : 0.85, factor: 1 };
    if (PERCENT.test(label)) return { target: { category }, confidence: sure ? 0.95 : 0.85, factor: 0.01 };
    if (category === 'gross_margin')
      return { target: { category: 'gross_profit' }, confidence: 0.85, factor: 1 };
    return undefined;
  }
  return { target: { category }, confidence: sure ? 0.95 : 0.85, factor: 1 };
}

function scaled(value: number, target: Target, multiplier: number): string {
  const category = 'category' in target ? target.category : undefined;
  // Counts, months and ratios are what they say: a units note (`$000s`) scales amounts of money only.
  let v = category && !MONETARY.has(category) ? value : value * multiplier;
  if (category && COST_CATEGORIES.has(category)) v = Math.abs(v);
  return String(Number(v.toFixed(6)));
}

interface SheetInput {
  name: string;
  rows: Dense;
  /** Reference of the cell at (row, column) of `rows`, which may be transposed. */
  ref(row: number, column: number): string;
  /** Whether `rows` are the sheet's own, not transposed: a statement of one period is read only so. */
  across?: boolean;
}

/** The figures of an unmapped row ([column, value]), forecasts left out as they are for mapped rows. */
function unmappedFigures(
  sheet: SheetInput,
  header: Header,
  figures: readonly [number, number][],
  at: { r: number; kind: Kind | undefined; multiplier: number; currency: string | null; today?: string },
): UnmappedFigure[] {
  return figures.flatMap(([c, figure]) => {
    const { period, kind: columnKind, stated } = header.columns.get(c)!;
    const kind = stated ? columnKind : (at.kind ?? columnKind);
    if (kind === 'forecast' || (kind === 'actual' && at.today && period.end > at.today)) return [];
    const value = String(Number((figure * at.multiplier).toFixed(6)));
    return [
      {
        cell: sheet.ref(at.r, c),
        date: period.end,
        cadence: period.cadence,
        value,
        currency: at.currency,
        kind,
      },
    ];
  });
}

const textsOf = (rows: Dense) => rows.flat().filter((c): c is string => typeof c === 'string');

/**
 * Notes above a table, or where they name no units, a note below it ("All figures in AED thousands"):
 * the text of rows that hold no figures.
 */
function withFootnotes(above: Notes, below: Dense): Notes {
  if (above.multiplier !== 1 && above.currency) return above;
  // The first few hundred texts: a note sits near its table, and a sheet of text costs no more than that.
  const texts = textsOf(below.filter((row) => !row.some((c, i) => i > 0 && figureOf(c) !== undefined)));
  const notes = notesOf(texts.slice(0, 300));
  return {
    multiplier: above.multiplier !== 1 ? above.multiplier : notes.multiplier,
    currency: above.currency ?? notes.currency,
  };
}

/** A row's own units, where its label names them (`ARR ($m)`, `Revenue per head (£)`), else the table's. */
function rowMultiplier(label: string, table: number): number {
  const own = notesOf([label]).multiplier;
  if (own !== 1) return own;
  return /\((?:[$€£]|usd|eur|gbp|#|no\.?)\)/i.test(label) ? 1 : table;
}

/** Balance-sheet lines other than cash. */
const BALANCES: ReadonlySet<string> = new Set([
  'accounts_payable',
  'accounts_receivable',
  'assets',
  'current_assets',
  'current_liabilities',
  'equity',
  'liabilities',
  'long_term_liabilities',
  'net_assets',
  'non_current_assets',
  'other_non_current_assets',
  'property_plants_and_equipment',
  'short_term_investments',
]);

/** What a table is, where it changes what a label names; `loose`: a table with one balance-sheet line at most. */
type Statement = 'cash-flow' | 'balance-sheet' | 'loose' | undefined;

/** The statement a sheet is, by its name or title: on it some labels name something else. */
function statementOf(texts: readonly string[]): Statement {
  if (texts.some((t) => /\bcash ?flows?\b/i.test(t))) return 'cash-flow';
  if (texts.some((t) => /\b(balance sheet|statement of financial position|bilanz|balans)\b/i.test(t)))
    return 'balance-sheet';
  return undefined;
}

/**
 * On a cash-flow statement a balance's label names its movement (`Accounts receivable`: their change);
 * on a balance sheet a flow's label names the year so far inside equity (`Net income`): both unmapped.
 */
function fitting<T extends { target: Target }>(mapped: T | undefined, statement: Statement): T | undefined {
  if (!mapped || !('category' in mapped.target)) return mapped;
  const { category } = mapped.target;
  if ((statement === 'cash-flow' || statement === 'loose') && BALANCES.has(category)) return undefined;
  if (statement === 'balance-sheet' && FLOWS.has(category)) return undefined;
  return mapped;
}

const monthsAfter = (end: string, today: string) =>
  (Number(end.slice(0, 4)) - Number(today.slice(0, 4))) * 12 +
  Number(end.slice(5, 7)) -
  Number(today.slice(5, 7));

/** The proposals and unmapped rows of one sheet (or its transpose), or undefined when it holds no table. */
function readTable(sheet: SheetInput, context: ExtractionContext): Extraction | undefined {
  const headers = findHeaders(sheet.rows, context.fyEndMonth);
  const titled = headers.length === 0 && sheet.across ? titledHeader(sheet.rows) : undefined;
  if (titled) headers.push(titled);
  if (headers.length === 0) return undefined;
  const sheetNotes = withFootnotes(
    notesOf([sheet.name, ...textsOf(sheet.rows.slice(0, headers[0]!.end + 1))]),
    sheet.rows.slice(headers[0]!.end + 1),
  );
  const sheetKind =
    kindOf(sheet.name) ??
    (/\b(projections?|projected|dcf|valuation|assumptions?)\b/i.test(sheet.name.replace(/[_-]/g, ' '))
      ? 'forecast'
      : undefined);
  const statement = statementOf([sheet.name, ...textsOf(sheet.rows.slice(0, headers[0]!.row + 1))]);
  const result: Extraction = { proposals: [], unmapped: [] };
  const seen = new Map<string, Proposal>();
  headers.forEach((header, i) => {
    const local =
      i === 0 ? sheetNotes : notesOf(textsOf(sheet.rows.slice(Math.max(0, header.row - 2), header.end + 1)));
    const notes = {
      multiplier: local.multiplier !== 1 ? local.multiplier : sheetNotes.multiplier,
      currency: local.currency ?? sheetNotes.currency,
    };
    const until = headers[i + 1]?.row ?? sheet.rows.length;
    // A header running a year and more past today, with no column saying its kind, is a plan's: no actuals.
    const { today } = context;
    const plan =
      today && [...header.columns.values()].some((c) => !c.stated && monthsAfter(c.period.end, today) >= 12);
    const kind = sheetKind ?? (plan ? 'forecast' : undefined);
    readRows(
      sheet,
      header,
      { from: header.end + 1, until, notes, sheetKind: kind, seen, statement },
      context,
      result,
    );
  });
  return result;
}

interface Section {
  from: number;
  until: number;
  notes: { multiplier: number; currency: string | undefined };
  sheetKind: Kind | undefined;
  /** The statement the sheet is, where it changes what a label names. */
  statement: Statement;
  /** Points proposed already on this sheet: the same figure twice (a line and its total) is kept once. */
  seen: Map<string, Proposal>;
}

/**
 * What a table's labels say of it as a whole: the ratios it gives in percent (`Gross margin %`), and,
 * with one balance-sheet line at most and no statement named, that it is no balance sheet.
 */
function traitsOf(
  labels: readonly ReturnType<typeof labelOf>[],
  at: Section,
): { percentRows: Set<string>; statement: Statement } {
  const percentRows = new Set<string>();
  const balances = new Set<string>();
  for (const found of labels) {
    const category = found ? synonymOf(found.label) : undefined;
    if (category && RATIOS.has(category) && PERCENT.test(`${found!.label} ${found!.unit ?? ''}`))
      percentRows.add(category);
    if (category && BALANCES.has(category)) balances.add(category);
  }
  // A balance-sheet line alone in a table that is no balance sheet (`Equity` under `Investments`) is no balance.
  return { percentRows, statement: at.statement ?? (balances.size < 2 ? 'loose' : undefined) };
}

function readRows(
  sheet: SheetInput,
  header: Header,
  at: Section,
  context: ExtractionContext,
  result: Extraction,
): void {
  const columns = [...header.columns.keys()];
  const firstColumn = Math.min(...columns);
  // Each row's label, read once: what the table's labels say as a whole is known before any row is read.
  const labels = Array.from({ length: Math.max(0, at.until - at.from) }, (_, i) =>
    labelOf(sheet.rows[at.from + i] ?? [], firstColumn),
  );
  const { percentRows, statement } = traitsOf(labels, at);
  const currency = at.notes.currency ?? context.currency;
  /** The last line with no figures: the heading of the lines under it. */
  let heading: string | undefined;
  for (let r = at.from; r < at.until; r++) {
    const row = sheet.rows[r] ?? [];
    const found = labels[r - at.from];
    if (!found) continue;
    const { label } = found;
    // Each figure read once: [column, value].
    const figures: [number, number][] = [];
    for (const c of columns) {
      const value = figureOf(row[c] ?? null);
      if (value !== undefined) figures.push([c, value]);
    }
    if (figures.length === 0) {
      heading = label;
      continue;
    }
    // A bare `Total` or `Subtotal` totals its heading (`Cash from operating`): read as `Total` of it, a guess.
    const bare = isBareTotal(label);
    if (bare && !heading) continue;
    // The label with its Unit column's unit, as a label with its units in brackets reads (`ARR (₹ Cr)`).
    const described = bare ? `Total ${heading}` : found.unit ? `${label} (${found.unit})` : label;
    const multiplier = rowMultiplier(described, at.notes.multiplier);
    const read = fitting(targetOf(described, figures, context, percentRows), statement);
    if (bare && !read) continue;
    const mapped = bare && read ? { ...read, confidence: Math.min(read.confidence, 0.85) } : read;
    if (!mapped) {
      const own = unmappedFigures(sheet, header, figures, {
        r,
        kind: at.sheetKind,
        multiplier: /%/.test(described) ? 1 : multiplier,
        currency,
        today: context.today,
      });
      result.unmapped.push({ sheet: sheet.name, row: r + 1, label, figures: own });
      continue;
    }
    const target =
      'category' in mapped.target ? mapped.target.category : `#${mapped.target.custom_metric_id}`;
    for (const [c, value] of figures) {
      const { period, kind: columnKind, stated } = header.columns.get(c)!;
      // A column's own kind (`2024A` on a sheet named `Plan`) outranks the sheet's name.
      const kind = stated ? columnKind : (at.sheetKind ?? columnKind);
      if (kind === 'forecast' || (kind === 'actual' && context.today && period.end > context.today)) continue;
      const key = `${target}|${period.end}|${period.cadence}|${kind}`;
      const before = at.seen.get(key);
      if (before && !outranks(label, before.row_label)) continue;
      const proposal: Proposal = {
        sheet: sheet.name,
        row: r + 1,
        cell: sheet.ref(r, c),
        row_label: label,
        target: mapped.target,
        date: period.end,
        cadence: period.cadence,
        value: scaled(value * mapped.factor, mapped.target, multiplier),
        // Counts, months and ratios have no currency.
        currency: 'category' in mapped.target && !MONETARY.has(mapped.target.category) ? null : currency,
        kind,
        confidence: Math.min(mapped.confidence, header.columns.get(c)!.confidence ?? 1),
      };
      if (before) result.proposals[result.proposals.indexOf(before)] = proposal;
      else result.proposals.push(proposal);
      at.seen.set(key, proposal);
    }
  }
}

/**
 * Of rows that give the same point, which is the figure: a total over its line (`Sales`, then `Total
 * trading income`), and a net over the same words gross (`Total other income`, then `Net other income`;
 * `Cost of goods sold`, then `Net cost of goods sold`). A net of other words (`Net sales` under `Total
 * revenue`) is a line.
 */
/** A total's label, in the languages packs come in, either side of a label in two (`Sum driftsinntekter / Total …`). */
const isTotal = (label: string) =>
  label
    .split(/\s+\/\s+/)
    .some((side) =>
      /^(total|totals|sum|summa|gesamt|totaal)\b|\b(i alt|yhteensa|yhteensä)$/i.test(side.trim()),
    );

function outranks(label: string, before: string): boolean {
  const words = (l: string) => normalizeLabel(l).replace(/^total\s+/, '');
  const netOf = (a: string, b: string) =>
    /^net\s+/i.test(a.trim()) && words(a).replace(/^net\s+/, '') === words(b);
  if (netOf(label, before)) return true;
  return isTotal(label) && !isTotal(before) && !netOf(before, label);
}

/** Finds the table of each sheet (periods across, or down for a transposed one) and maps its rows. */
export function extractFigures(grids: readonly SheetGrid[], context: ExtractionContext): Extraction {
  const all: Extraction = { proposals: [], unmapped: [] };
  for (const grid of grids) {
    const rows = dense(grid);
    const across = readTable(
      { name: grid.name, rows, ref: (r, c) => `${columnName(c)}${r + 1}`, across: true },
      context,
    );
    const down =
      across && across.proposals.length > 0
        ? undefined
        : readTable(
            { name: grid.name, rows: transpose(rows), ref: (r, c) => `${columnName(r)}${c + 1}` },
            context,
          );
    const found = down && down.proposals.length > (across?.proposals.length ?? 0) ? down : across;
    if (!found) continue;
    all.proposals.push(...found.proposals);
    all.unmapped.push(...found.unmapped);
  }
  return all;
}
