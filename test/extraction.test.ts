import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { extractText } from '../parsing/extract.ts';
import { periodOf } from '../services/extraction/periods.ts';
import { extractFigures, figureOf } from '../services/extraction/tables.ts';
import { corpus, type ExpectedPoint } from './helpers/workbook-corpus.ts';

const DIR = join(import.meta.dirname, 'fixtures', 'workbooks');
const TYPES: Record<string, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv',
  pdf: 'application/pdf',
};

const key = (p: { date: string; cadence: string; value: string; kind: string }, category: string) =>
  `${category}|${p.date}|${p.cadence}|${p.value}|${p.kind}`;

async function proposalsOf(file: string, fyEndMonth: number) {
  const content = readFileSync(join(DIR, file));
  const outcome = await extractText({
    content,
    content_type: TYPES[file.split('.').pop()!]!,
    filename: file,
  });
  if (outcome.state !== 'completed') throw new Error(`${file}: ${outcome.reason}`);
  return extractFigures(outcome.grids ?? [], {
    fyEndMonth,
    currency: null,
    customMetrics: [],
    remembered: new Map(),
  });
}

describe('extraction of figures from management accounts', () => {
  const files = readdirSync(DIR).filter((f) => !f.endsWith('.json'));

  it('holds at least 12 workbooks, as the corpus script writes them', () => {
    expect(files.length).to.be.at.least(12);
    for (const file of corpus())
      expect(readFileSync(join(DIR, file.file)).equals(file.content), file.file).to.equal(true);
  });

  it('proposes the expected points: recall ≥ 95 %, precision ≥ 99 %, no budget as actual, no unmapped row proposed', async () => {
    let expectedTotal = 0;
    let rightTotal = 0;
    let proposedActuals = 0;
    let rightActuals = 0;
    const lines: string[] = [];
    for (const file of files) {
      const { fiscal_year_end_month, points } = JSON.parse(
        readFileSync(join(DIR, `${file}.json`), 'utf8'),
      ) as {
        fiscal_year_end_month: number;
        points: ExpectedPoint[];
      };
      const { proposals, unmapped } = await proposalsOf(file, fiscal_year_end_month);
      const proposed = new Set(
        proposals.map((p) => key(p, 'category' in p.target ? p.target.category : p.target.custom_metric_id)),
      );
      const wanted = new Set(points.map((p) => key(p, p.category)));
      const right = [...wanted].filter((k) => proposed.has(k)).length;
      const actuals = proposals.filter((p) => p.kind === 'actual');
      const actualsRight = actuals.filter((p) =>
        wanted.has(key(p, 'category' in p.target ? p.target.category : '')),
      ).length;
      expectedTotal += wanted.size;
      rightTotal += right;
      proposedActuals += actuals.length;
      rightActuals += actualsRight;
      const budgets = new Set(
        points.filter((p) => p.kind === 'budget').map((p) => key({ ...p, kind: 'actual' }, p.category)),
      );
      expect(
        actuals.filter((p) => budgets.has(key(p, 'category' in p.target ? p.target.category : ''))),
        `${file}: budget as actual`,
      ).to.be.empty;
      const unmappedRows = new Set(unmapped.map((u) => `${u.sheet}|${u.label}`));
      expect(
        proposals.filter((p) => unmappedRows.has(`${p.sheet}|${p.row_label}`)),
        file,
      ).to.be.empty;
      lines.push(`${file}: recall ${right}/${wanted.size}, precision ${actualsRight}/${actuals.length}`);
    }
    const recall = rightTotal / expectedTotal;
    const precision = rightActuals / Math.max(1, proposedActuals);
    console.log(
      `${lines.join('\n')}\ntotal: recall ${(recall * 100).toFixed(1)} %, precision ${(precision * 100).toFixed(1)} %`,
    );
    expect(recall).to.be.at.least(0.95);
    expect(precision).to.be.at.least(0.99);
  });

  it('lists the lines it cannot map instead of guessing them', async () => {
    const { unmapped, proposals } = await proposalsOf('three-tabs.xlsx', 12);
    expect(unmapped.map((u) => u.label)).to.have.members([
      'Product revenue',
      'Services revenue',
      'Marketing',
    ]);
    expect(proposals.find((p) => p.row_label === 'Total revenue')?.cell).to.equal('B6');
  });

  it('reads period headers in the usual spellings, fiscal years included', () => {
    expect(periodOf('Jan-26')).to.deep.equal({ end: '2026-01-31', cadence: 'month' });
    expect(periodOf('January 2026')).to.deep.equal({ end: '2026-01-31', cadence: 'month' });
    expect(periodOf('2026-02')).to.deep.equal({ end: '2026-02-28', cadence: 'month' });
    expect(periodOf('Q1 FY26', 6)).to.deep.equal({ end: '2025-09-30', cadence: 'quarter' });
    expect(periodOf('FY2025', 3)).to.deep.equal({ end: '2025-03-31', cadence: 'year' });
    expect(periodOf('Revenue')).to.equal(undefined);
  });

  it('reads figures written as text, brackets negative', () => {
    expect(figureOf('(1,234)')).to.equal(-1234);
    expect(figureOf('1,234.5')).to.equal(1234.5);
    expect(figureOf('12%')).to.equal(0.12);
    expect(figureOf('n/a')).to.equal(undefined);
  });
});
