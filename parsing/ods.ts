import type { ZipReader } from '../core/zip.ts';
import { flat, MAX_CELL_CHARS, type SheetText, Unparseable } from './output.ts';
import { attribute, readXml } from './xml.ts';

/** Repeats above this are what spreadsheet programs write to pad a sheet; they are cut to it. */
const MAX_REPEAT = 1000;

interface Run {
  text: string;
  repeat: number;
}

function repeatOf(attrs: string, name: string): number {
  const n = Number(attribute(attrs, name) ?? 1);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** A row of runs (a cell and its repeat) written `times` times; cells are materialised up to the cap. */
function writeRow(runs: Run[], times: number, out: SheetText): void {
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

/** An OpenDocument spreadsheet's content.xml, streamed; repeats are bounded by the output's caps. */
export function readOds(zip: ZipReader, out: SheetText, found: { pages: number | null }): void {
  const content = zip.entry('content.xml');
  if (!content) throw new Unparseable('an OpenDocument file without content');
  let runs: Run[] | undefined;
  let withText = 0;
  let rowRepeat = 1;
  let cell: string | undefined;
  let cellRepeat = 1;
  const push = (run: Run) => {
    if (!runs) return;
    const last = runs[runs.length - 1];
    if (run.text === '' && last?.text === '') last.repeat += run.repeat;
    else runs.push(run);
    if (run.text !== '') withText += run.repeat;
    // A row holding more cells than may still be written is written now, and the cap ends the parse.
    if (withText > out.cellsLeft) writeRow(runs, 1, out);
  };
  readXml(zip, content, {
    open(name, attrs, selfClosing) {
      if (name === 'table:table') {
        if (selfClosing) return;
        found.pages = out.sheetCount + 1;
        out.sheet(attribute(attrs, 'table:name') ?? `Sheet ${out.sheetCount + 1}`);
      } else if (name === 'table:table-row') {
        if (selfClosing) {
          out.emptyRow();
          return;
        }
        runs = [];
        withText = 0;
        rowRepeat = repeatOf(attrs, 'table:number-rows-repeated');
      } else if (name === 'table:table-cell' || name === 'table:covered-table-cell') {
        const repeat = repeatOf(attrs, 'table:number-columns-repeated');
        if (selfClosing) push({ text: '', repeat });
        else {
          cell = '';
          cellRepeat = repeat;
        }
      } else if (cell !== undefined && cell.length < MAX_CELL_CHARS) {
        // A new paragraph, a space run, a tab or a line break inside a cell: a space.
        if (name === 'text:s' || name === 'text:tab' || name === 'text:line-break') cell += ' ';
        else if (name === 'text:p' && cell !== '') cell += ' ';
      }
    },
    close(name) {
      if (name === 'table:table-row' && runs) {
        writeRow(runs, rowRepeat, out);
        runs = undefined;
      } else if ((name === 'table:table-cell' || name === 'table:covered-table-cell') && cell !== undefined) {
        push({ text: flat(cell), repeat: cellRepeat });
        cell = undefined;
      }
    },
    text(t) {
      if (cell !== undefined && cell.length < MAX_CELL_CHARS) cell += t;
    },
  });
}
