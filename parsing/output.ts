/** Thrown once a parser has produced all it may: the text so far is kept, with the reason it was cut. */
export class OutputFull extends Error {}

const count = (n: number) => n.toLocaleString('en');

/** The text a parser produces, up to a number of characters; past it, the parse stops with a cut. */
export class TextOutput {
  private readonly parts: string[] = [];
  private length = 0;
  /** Why the text is incomplete, once a bound cut it. */
  cut: string | undefined;

  constructor(readonly maxChars: number) {}

  /** Characters that may still be added. */
  get room(): number {
    return this.maxChars - this.length;
  }

  add(text: string): void {
    if (text.length > this.room) {
      this.parts.push(text.slice(0, this.room));
      this.length = this.maxChars;
      this.stop(`the text was cut at ${count(this.maxChars)} characters`);
    }
    this.parts.push(text);
    this.length += text.length;
  }

  /** Ends the parse here, saying why; the first reason given is the one kept. */
  stop(reason: string): never {
    this.cut ??= reason;
    throw new OutputFull(reason);
  }

  /** Records a cut without stopping (a part of the file left unread on purpose). */
  note(reason: string): void {
    this.cut ??= reason;
  }

  text(): string {
    return this.parts.join('');
  }
}

/** Empty columns written between two cells at most: the gap is shown, never materialised. */
const MAX_GAP = 64;

/** Cells never hold a tab or line break in the text, so each row stays one tab-separated line. */
export function flat(s: string): string {
  // Most cells hold no break at all: they are only trimmed (this runs for every cell of a workbook).
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 9 || c === 10 || c === 13) return s.replace(/[\t\r\n]+/g, ' ').trim();
  }
  return s.trim();
}

/**
 * A spreadsheet as text: `Sheet: name`, then a tab-separated line per row with content, one blank line
 * where empty rows were; at most `maxCells` cells with content over the whole file.
 */
export class SheetText {
  private cells = 0;
  private sheets = 0;
  private gap = false;
  private started = false;

  constructor(
    private readonly out: TextOutput,
    private readonly maxCells: number,
  ) {}

  get sheetCount(): number {
    return this.sheets;
  }

  /** Cells with content that may still be written. */
  get cellsLeft(): number {
    return this.maxCells - this.cells;
  }

  /** Records a cut without stopping. */
  note(reason: string): void {
    this.out.note(reason);
  }

  sheet(name: string): void {
    this.out.add(`${this.sheets > 0 ? '\n\n' : ''}Sheet: ${flat(name)}`);
    this.sheets++;
    this.gap = false;
    this.started = false;
  }

  /** A row without content: shown as one blank line if a row with content follows. */
  emptyRow(): void {
    if (this.started) this.gap = true;
  }

  /** A row as its cells with content, by ascending zero-based column. */
  row(cells: readonly { column: number; text: string }[]): void {
    if (cells.length === 0) {
      this.emptyRow();
      return;
    }
    let line = this.gap ? '\n\n' : '\n';
    let column = 0;
    for (const cell of cells) {
      if (this.cells >= this.maxCells) {
        this.out.add(line);
        this.out.stop(`only the first ${count(this.maxCells)} cells of the spreadsheet were read`);
      }
      this.cells++;
      line += '\t'.repeat(Math.min(Math.max(cell.column - column, 0), MAX_GAP)) + cell.text;
      column = cell.column;
      if (line.length > this.out.room) break;
    }
    this.out.add(line);
    this.gap = false;
    this.started = true;
  }
}

/** A file that has no text to give, and why. */
export class Unparseable extends Error {}

/** No spreadsheet program keeps more characters in one cell; longer cell text is cut there. */
export const MAX_CELL_CHARS = 32_767;
