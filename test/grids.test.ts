import { expect } from 'chai';
import { extractText } from '../parsing/extract.ts';
import { excelSerialDate, isDateFormat } from '../parsing/grid.ts';
import { type WriteSheet, writeCsv, writeOds, writeXlsx } from './helpers/workbooks.ts';

const SHEET: WriteSheet = {
  name: 'P&L',
  rows: [
    ['Profit and loss'],
    [],
    ['', { date: '2026-01-31' }, { date: '2026-02-28' }],
    ['Revenue', 1200, 1350.5],
    ['Cost of sales', '(400)', -420],
  ],
};

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function gridsOf(content: Buffer, content_type: string, filename: string) {
  const outcome = await extractText({ content, content_type, filename });
  if (outcome.state !== 'completed') throw new Error(`not parsed: ${outcome.reason}`);
  return outcome.grids ?? [];
}

describe('typed grids of spreadsheets', () => {
  it('reads an XLSX sheet as numbers, text and date cells from their number format', async () => {
    const [grid] = await gridsOf(writeXlsx([SHEET]), XLSX_TYPE, 'accounts.xlsx');
    expect(grid?.name).to.equal('P&L');
    expect(grid?.rows).to.deep.equal([
      { row: 0, cells: ['Profit and loss'] },
      { row: 2, cells: [null, { date: '2026-01-31' }, { date: '2026-02-28' }] },
      { row: 3, cells: ['Revenue', 1200, 1350.5] },
      { row: 4, cells: ['Cost of sales', '(400)', -420] },
    ]);
  });

  it('reads an ODS table the same way', async () => {
    const [grid] = await gridsOf(
      writeOds([SHEET]),
      'application/vnd.oasis.opendocument.spreadsheet',
      'a.ods',
    );
    expect(grid?.rows.find((r) => r.row === 2)?.cells).to.deep.equal([
      null,
      { date: '2026-01-31' },
      { date: '2026-02-28' },
    ]);
    expect(grid?.rows.find((r) => r.row === 3)?.cells).to.deep.equal(['Revenue', 1200, 1350.5]);
  });

  it('reads a CSV file into one grid, plain numbers as numbers and the rest as text', async () => {
    const [grid] = await gridsOf(writeCsv(SHEET), 'text/csv', 'a.csv');
    expect(grid?.rows.find((r) => r.row === 4)?.cells).to.deep.equal(['Cost of sales', '(400)', -420]);
    expect(grid?.rows.find((r) => r.row === 2)?.cells).to.deep.equal([
      null,
      { date: '2026-01-31' },
      { date: '2026-02-28' },
    ]);
  });

  it('keeps a grid within the cell cap', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => [`Row ${i}`, i, i + 1]);
    const outcome = await extractText(
      { content: writeXlsx([{ name: 'S', rows }]), content_type: XLSX_TYPE, filename: 'a.xlsx' },
      { maxBytes: 1e7, timeoutMs: 10_000, maxChars: 1e6, maxCells: 30 },
    );
    if (outcome.state !== 'completed') throw new Error('not parsed');
    const cells = outcome.grids!.flatMap((g) => g.rows.flatMap((r) => r.cells.filter((c) => c !== null)));
    expect(cells.length).to.be.at.most(30);
  });

  it('tells date formats from number formats', () => {
    expect(isDateFormat(14, undefined)).to.equal(true);
    expect(isDateFormat(164, 'mmm\\-yy')).to.equal(true);
    expect(isDateFormat(165, '#,##0;[Red](#,##0)')).to.equal(false);
    expect(isDateFormat(166, 'h:mm')).to.equal(false);
    expect(excelSerialDate(46053)).to.equal('2026-01-31');
  });
});
