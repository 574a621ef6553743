import { expect } from 'chai';
import { pdfFile } from '../db/seeds/office-files.ts';
import { extractText } from '../parsing/extract.ts';
import { MAX_TABLE_ITEMS, type PlacedText, pdfFigure, pdfPageGrid } from '../parsing/pdf-tables.ts';
import { pdfTable, writePdf } from './helpers/pdfs.ts';

const read = (content: Buffer) =>
  extractText({ content, content_type: 'application/pdf', filename: 'f.pdf' });

/** Texts left-aligned at the x given, 11 points high, about 6 points a character wide. */
const placed = (y: number, ...cells: [number, string][]): PlacedText[] =>
  cells.map(([x, text]) => ({ text, x, y, width: text.length * 6, height: 11 }));

describe('tables in the text layer of a PDF', () => {
  it('reads a table of aligned columns as a grid: one row per line, figures as numbers, brackets negative', async () => {
    const content = writePdf([
      [
        { x: 72, y: 740, text: 'Summary, in $000s' },
        ...pdfTable(
          [
            [undefined, 'Jan-26', 'Feb-26'],
            ['Net sales', '1,200', '1,350.5'],
            ['Cost of sales', '(400)', '-450'],
          ],
          [300, 380],
          700,
        ),
      ],
    ]);
    const outcome = await read(content);
    if (outcome.state !== 'completed') throw new Error(outcome.reason);
    expect(outcome.text).to.include('Net sales');
    expect(outcome.grids).to.deep.equal([
      {
        name: 'Page 1',
        rows: [
          { row: 0, cells: ['Summary, in $000s'] },
          { row: 1, cells: [null, 'Jan-26', 'Feb-26'] },
          { row: 2, cells: ['Net sales', 1200, 1350.5] },
          { row: 3, cells: ['Cost of sales', -400, -450] },
        ],
      },
    ]);
  });

  it('gives no grid for a page whose figures do not stand in distinct columns, rather than guess them', () => {
    const ragged = [
      ...placed(700, [72, 'Revenue'], [200, '1,200'], [260, '1,350']),
      ...placed(684, [72, 'Costs'], [215, '400'], [232, '450']),
    ];
    expect(pdfPageGrid(ragged)).to.equal(undefined);
    // Figures that each stand apart (no column shared by half the lines) are no table.
    const scattered = [
      ...placed(700, [72, 'Revenue'], [200, '1'], [300, '2']),
      ...placed(684, [72, 'Costs'], [250, '3'], [350, '4']),
      ...placed(668, [72, 'Cash'], [200, '5'], [300, '6']),
    ];
    expect(pdfPageGrid(scattered)).to.equal(undefined);
    // One line of figures is no table either.
    expect(pdfPageGrid(placed(700, [72, 'Revenue'], [200, '1,200'], [260, '1,350']))).to.equal(undefined);
  });

  it('looks for no table among more columns than a grid holds, or more items than a page of tables has', () => {
    const wide = (y: number) => Array.from({ length: 600 }, (_, i) => placed(y, [i * 20, '7'])[0]!);
    const started = performance.now();
    expect(pdfPageGrid([...wide(700), ...wide(684)])).to.equal(undefined);
    const many = Array.from(
      { length: MAX_TABLE_ITEMS + 1 },
      (_, i) => placed(700 - (i % 2) * 16, [72 + (i % 2) * 100, '1'])[0]!,
    );
    expect(pdfPageGrid(many)).to.equal(undefined);
    expect(performance.now() - started).to.be.below(1000);
  });

  it('keeps one line of text whose items share a baseline within half the font height', () => {
    const grid = pdfPageGrid([
      ...placed(700, [72, 'Revenue'], [200, '10'], [260, '20']),
      ...placed(684.5, [72, 'Costs'], [260, '5']),
      ...placed(680, [200, '4']),
    ]);
    expect(grid).to.deep.equal([
      ['Revenue', 10, 20],
      ['Costs', 4, 5],
    ]);
  });

  it('gives a PDF of prose no grids at all', async () => {
    const outcome = await read(pdfFile([['Revenue grew 12% to 1,200 in Q1 2026.', 'Hiring is on plan.']]));
    expect(outcome).to.have.property('state', 'completed');
    expect(outcome).not.to.have.property('grids');
  });

  it('reads figures as printed: thousands in groups of three, brackets or a minus negative', () => {
    expect(pdfFigure('(1,234)')).to.equal(-1234);
    expect(pdfFigure('$1,200.50')).to.equal(1200.5);
    expect(pdfFigure('-12')).to.equal(-12);
    expect(pdfFigure('1,23')).to.equal(undefined);
    expect(pdfFigure('(12')).to.equal(undefined);
    expect(pdfFigure('12%')).to.equal(undefined);
    expect(pdfFigure('Q1')).to.equal(undefined);
  });
});
