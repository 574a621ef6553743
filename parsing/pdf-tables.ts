import { type GridCell, MAX_GRID_COLUMNS } from './grid.ts';

// Tables a PDF's text layer holds as aligned columns, read as grids of cells. Only where the layout says
// so plainly: text items on the same baseline form a line; the columns are the bands that the figures of
// the lines holding two or more figures occupy, and a page whose figures do not fall into distinct bands
// (two figures of one line in one band) gives no grid at all rather than a guess.

/** A text item of the page: its text, its left edge and baseline, its width and font height, in points. */
export interface PlacedText {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Chunk {
  text: string;
  x0: number;
  x1: number;
}

/** Lines of the page, top to bottom, each a list of chunks left to right. */
type Lines = Chunk[][];

/** A band of columns by its left and right edge. */
interface Band {
  x0: number;
  x1: number;
}

/** Items whose baselines differ by less than this share of the font height are on one line. */
const SAME_LINE = 0.5;
/** Items closer than this share of the font height are one chunk (words of one cell). */
const SAME_CHUNK = 0.35;
/** Lines of figures needed for a table, and figures in each. */
const MIN_FIGURE_LINES = 2;
const MIN_FIGURES = 2;

/**
 * A page with more text items than this is not looked at for a table (its text is still read): placing
 * each item in its column costs items × columns, and no printed table comes near it.
 */
export const MAX_TABLE_ITEMS = 50_000;

const NUMBER = /^(\()?-?[$€£]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?(\))?$/;

/**
 * A figure as the text shows it (`1,234.5`, `(40)`, `-12`, `$1,200`), or undefined: brackets are a
 * negative, thousands separators are read only in groups of three.
 */
export function pdfFigure(text: string): number | undefined {
  const t = text.replace(/\s+/g, '');
  const m = NUMBER.exec(t);
  if (!m || Boolean(m[1]) !== Boolean(m[5])) return undefined;
  const n = Number(t.replace(/[(),$€£]/g, ''));
  if (!Number.isFinite(n)) return undefined;
  return m[1] ? -Math.abs(n) : n;
}

function linesOf(items: readonly PlacedText[]): Lines {
  const sorted = items
    .filter((i) => i.text.trim() !== '' && Number.isFinite(i.x) && Number.isFinite(i.y))
    .sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: { y: number; items: PlacedText[] }[] = [];
  for (const item of sorted) {
    const last = lines[lines.length - 1];
    const tolerance = Math.max(1, item.height * SAME_LINE);
    if (last && Math.abs(last.y - item.y) <= tolerance) last.items.push(item);
    else lines.push({ y: item.y, items: [item] });
  }
  return lines.map(({ items: line }) => {
    line.sort((a, b) => a.x - b.x);
    const chunks: Chunk[] = [];
    for (const item of line) {
      const last = chunks[chunks.length - 1];
      // A font without widths gives items no width: half the font height a character stands in.
      const width = item.width > 0 ? item.width : item.text.length * item.height * 0.5;
      const x1 = item.x + width;
      if (last && item.x - last.x1 < Math.max(1, item.height * SAME_CHUNK)) {
        last.text = `${last.text} ${item.text.trim()}`;
        last.x1 = Math.max(last.x1, x1);
      } else chunks.push({ text: item.text.trim(), x0: item.x, x1 });
    }
    return chunks;
  });
}

/**
 * The column bands: the union of the extents of the figures on lines with two or more figures; undefined
 * when two figures of one line fall into one band, a band holds figures of fewer than half the lines,
 * or there are too few such lines or bands.
 */
function bandsOf(lines: Lines): Band[] | undefined {
  const figureLines = lines
    .map((line) => line.filter((c) => pdfFigure(c.text) !== undefined))
    .filter((figures) => figures.length >= MIN_FIGURES);
  if (figureLines.length < MIN_FIGURE_LINES) return undefined;
  const extents = figureLines.flat().sort((a, b) => a.x0 - b.x0);
  const bands: Band[] = [];
  for (const { x0, x1 } of extents) {
    const last = bands[bands.length - 1];
    if (last && x0 <= last.x1) last.x1 = Math.max(last.x1, x1);
    else bands.push({ x0, x1 });
  }
  // Columns past the grid's width would be dropped: a table that wide is no table read reliably.
  if (bands.length < MIN_FIGURES || bands.length > MAX_GRID_COLUMNS) return undefined;
  const holding = new Array<number>(bands.length).fill(0);
  for (const figures of figureLines) {
    const used = new Set(figures.map((f) => bandOf(bands, f)));
    if (used.size !== figures.length) return undefined;
    for (const band of used) holding[band]!++;
  }
  // A column is one that figures of many lines stand in: a band of one or two stray figures says the
  // figures are not in columns at all (ragged text, or positions the layer does not give truly).
  const needed = Math.max(MIN_FIGURE_LINES, Math.ceil(figureLines.length / 2));
  return holding.every((n) => n >= needed) ? bands : undefined;
}

/** The band a chunk belongs to: the one it overlaps most, else the nearest. */
function bandOf(bands: readonly Band[], chunk: Chunk): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  bands.forEach((band, i) => {
    const overlap = Math.min(band.x1, chunk.x1) - Math.max(band.x0, chunk.x0);
    const score = overlap > 0 ? overlap : -Math.abs((band.x0 + band.x1) / 2 - (chunk.x0 + chunk.x1) / 2);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

/**
 * The page's lines as rows of a grid when its figures stand in distinct columns: column 0 holds what
 * stands left of the first column of figures (labels, titles, prose), the others one band each; figures
 * are numbers, the rest text. Undefined when the page holds no such table.
 */
export function pdfPageGrid(items: readonly PlacedText[]): GridCell[][] | undefined {
  if (items.length > MAX_TABLE_ITEMS) return undefined;
  const lines = linesOf(items);
  const bands = bandsOf(lines);
  if (!bands) return undefined;
  const left = bands[0]!.x0;
  return lines.map((line) => {
    const texts: string[] = [];
    for (const chunk of line) {
      // Mostly left of the figures: a label, a title, prose; a header over the first column sticks out
      // a little left of it, right-aligned as the figures are.
      const column = chunk.x0 < left && chunk.x1 - left < left - chunk.x0 ? 0 : bandOf(bands, chunk) + 1;
      texts[column] = texts[column] === undefined ? chunk.text : `${texts[column]} ${chunk.text}`;
    }
    return Array.from(texts, (text) => (text === undefined ? null : (pdfFigure(text) ?? text)));
  });
}
