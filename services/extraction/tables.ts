import type { GridCell, SheetGrid } from '../../parsing/grid.ts';
import { type Kind, kindOf, type Period, periodOf } from './periods.ts';
import { COST_CATEGORIES, isBareTotal, normalizeLabel, synonymOf, UNSCALED_CATEGORIES } from './synonyms.ts';

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

/** A figure in a cell: numbers, and text such as `(1,234)`, `1,234.5`, `-12`, `12%`; dashes are empty. */
export function figureOf(cell: GridCell): number | undefined {
  if (typeof cell === 'number') return cell;
  if (typeof cell !== 'string') return undefined;
  const m = /^(\()?\s*-?\s*[$€£]?\s*(-?[\d,]*\.?\d+)\s*(%)?\s*(\))?$/.exec(cell.trim());
  if (!m || !/^-?(\d{1,3}(,\d{3})*|\d+)(\.\d+)?$|^-?\.\d+$/.test(m[2]!)) return undefined;
  let n = Number(m[2]!.replace(/,/g, ''));
  if ((m[1] && m[4]) || cell.trim().startsWith('-')) n = -Math.abs(n);
  return m[3] ? n / 100 : n;
}

const UNITS: [RegExp, number][] = [
  [
    /\b(in thousands|thousands)\b|[$€£]\s?0{3}s?\b|\b0{3}s\b|\(0{3}\)|\b(usd|eur|gbp)\s?(k|000s?)\b|[$€£]k\b|\d?k\)/i,
    1000,
  ],
  [/\b(in millions|millions)\b|\b(usd|eur|gbp)\s?(m|mm|mn)\b|[$€£]\s?(m|mm|mn)\b/i, 1_000_000],
];
const CURRENCIES: [RegExp, string][] = [
  [/\busd\b|\$/i, 'USD'],
  [/\beur\b|€/i, 'EUR'],
  [/\bgbp\b|£/i, 'GBP'],
];

/** The units multiplier and currency that notes in the text cells given name. */
function notesOf(texts: string[]): { multiplier: number; currency: string | undefined } {
  let multiplier = 1;
  let currency: string | undefined;
  for (const text of texts) {
    for (const [pattern, m] of UNITS) if (multiplier === 1 && pattern.test(text)) multiplier = m;
    for (const [pattern, c] of CURRENCIES) if (!currency && pattern.test(text)) currency = c;
  }
  return { multiplier, currency };
}

interface Header {
  row: number;
  periods: Map<number, Period>;
  kinds: Map<number, Kind>;
}

/**
 * The kind a block label above the header names: a label is a few words (`Budget`, `Actual YTD`,
 * `Full-year plan`); a sentence above the table (a PDF's prose, a note) names none, whatever words it uses.
 */
function blockKind(text: string): Kind | undefined {
  const t = text.trim();
  return t.length <= 40 && t.split(/\s+/).length <= 4 ? kindOf(t) : undefined;
}

/** The row with the most period cells (two at least) among the first rows of a sheet. */
function findHeader(rows: Dense, fyEndMonth: number): Header | undefined {
  let best: Header | undefined;
  for (let r = 0; r < Math.min(rows.length, 60); r++) {
    const periods = new Map<number, Period>();
    rows[r]!.forEach((cell, c) => {
      const period = c > 0 ? periodOf(cell, fyEndMonth) : undefined;
      if (period) periods.set(c, period);
    });
    if (periods.size >= 2 && periods.size > (best?.periods.size ?? 0))
      best = { row: r, periods, kinds: new Map() };
  }
  if (!best) return undefined;
  // A block label (`Budget`) in a row above or in the header cell itself names the kind of the columns under it.
  for (const c of best.periods.keys()) {
    const own = rows[best.row]![c];
    let kind = typeof own === 'string' ? kindOf(own) : undefined;
    for (let r = best.row - 1; !kind && r >= Math.max(0, best.row - 3); r--) {
      for (let k = c; k >= 0 && !kind; k--) {
        const above = rows[r]![k];
        if (typeof above === 'string' && above.trim() !== '') {
          kind = blockKind(above);
          break;
        }
      }
    }
    best.kinds.set(c, kind ?? 'actual');
  }
  return best;
}

/** The label of a row: its last text cell before the first period column. */
function labelOf(row: GridCell[], firstColumn: number): string | undefined {
  for (let c = Math.min(firstColumn, row.length) - 1; c >= 0; c--) {
    const cell = row[c];
    if (typeof cell === 'string' && cell.trim() !== '' && figureOf(cell) === undefined) return cell.trim();
  }
  return undefined;
}

function targetOf(
  label: string,
  context: ExtractionContext,
): { target: Target; confidence: number } | undefined {
  const key = normalizeLabel(label);
  const remembered = context.remembered.get(key);
  if (remembered) return { target: remembered, confidence: 0.99 };
  const custom = context.customMetrics.find((m) => normalizeLabel(m.name) === key);
  if (custom) return { target: { custom_metric_id: custom.id }, confidence: 0.95 };
  const category = synonymOf(label);
  return category ? { target: { category }, confidence: 0.95 } : undefined;
}

function scaled(value: number, target: Target, multiplier: number): string {
  const category = 'category' in target ? target.category : undefined;
  let v = category && UNSCALED_CATEGORIES.has(category) ? value : value * multiplier;
  if (category && COST_CATEGORIES.has(category)) v = Math.abs(v);
  return String(Number(v.toFixed(6)));
}

interface SheetInput {
  name: string;
  rows: Dense;
  /** Reference of the cell at (row, column) of `rows`, which may be transposed. */
  ref(row: number, column: number): string;
}

/** The figures of an unmapped row ([column, value]), forecasts left out as they are for mapped rows. */
function unmappedFigures(
  sheet: SheetInput,
  header: Header,
  figures: readonly [number, number][],
  at: { r: number; kind: Kind | undefined; multiplier: number; currency: string | null },
): UnmappedFigure[] {
  return figures.flatMap(([c, figure]) => {
    const kind = at.kind ?? header.kinds.get(c) ?? 'actual';
    if (kind === 'forecast') return [];
    const period = header.periods.get(c)!;
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

/** The proposals and unmapped rows of one sheet (or its transpose), or undefined when it holds no table. */
function readTable(sheet: SheetInput, context: ExtractionContext): Extraction | undefined {
  const header = findHeader(sheet.rows, context.fyEndMonth);
  if (!header) return undefined;
  const firstColumn = Math.min(...header.periods.keys());
  const notes = sheet.rows
    .slice(0, header.row + 1)
    .flat()
    .filter((c): c is string => typeof c === 'string');
  const { multiplier, currency } = notesOf([sheet.name, ...notes]);
  const sheetKind = kindOf(sheet.name);
  const result: Extraction = { proposals: [], unmapped: [] };
  const seen = new Set<string>();
  const columns = [...header.periods.keys()];
  for (let r = header.row + 1; r < sheet.rows.length; r++) {
    const row = sheet.rows[r]!;
    const label = labelOf(row, firstColumn);
    if (!label) continue;
    // Each figure read once: [column, value].
    const figures: [number, number][] = [];
    for (const c of columns) {
      const value = figureOf(row[c] ?? null);
      if (value !== undefined) figures.push([c, value]);
    }
    if (figures.length === 0 || isBareTotal(label)) continue;
    const mapped = targetOf(label, context);
    if (!mapped) {
      const at = { r, kind: sheetKind, multiplier, currency: currency ?? context.currency };
      const own = unmappedFigures(sheet, header, figures, at);
      result.unmapped.push({ sheet: sheet.name, row: r + 1, label, figures: own });
      continue;
    }
    const target =
      'category' in mapped.target ? mapped.target.category : `#${mapped.target.custom_metric_id}`;
    for (const [c, value] of figures) {
      const kind = sheetKind ?? header.kinds.get(c) ?? 'actual';
      if (kind === 'forecast') continue;
      const period = header.periods.get(c)!;
      const key = `${target}|${period.end}|${period.cadence}|${kind}`;
      // The same figure twice on a sheet (a line and its total): the first is kept, lower in confidence.
      if (seen.has(key)) continue;
      seen.add(key);
      result.proposals.push({
        sheet: sheet.name,
        row: r + 1,
        cell: sheet.ref(r, c),
        row_label: label,
        target: mapped.target,
        date: period.end,
        cadence: period.cadence,
        value: scaled(value, mapped.target, multiplier),
        currency: currency ?? context.currency,
        kind,
        confidence: mapped.confidence,
      });
    }
  }
  return result;
}

/** Finds the table of each sheet (periods across, or down for a transposed one) and maps its rows. */
export function extractFigures(grids: readonly SheetGrid[], context: ExtractionContext): Extraction {
  const all: Extraction = { proposals: [], unmapped: [] };
  for (const grid of grids) {
    const rows = dense(grid);
    const across = readTable({ name: grid.name, rows, ref: (r, c) => `${columnName(c)}${r + 1}` }, context);
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
