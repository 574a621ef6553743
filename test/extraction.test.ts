import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { figuresOf, scoreCorpus, scoreLines } from '../bench/score-corpus.ts';
import { figureOf } from '../services/extraction/figures.ts';
import { periodOf } from '../services/extraction/periods.ts';
import { corpus } from './helpers/workbook-corpus.ts';

const DIR = join(import.meta.dirname, 'fixtures', 'workbooks');
describe('extraction of figures from management accounts', () => {
  const files = readdirSync(DIR).filter((f) => !f.endsWith('.json'));

  it('holds at least 12 workbooks, as the corpus script writes them', () => {
    expect(files.length).to.be.at.least(12);
    for (const file of corpus())
      expect(readFileSync(join(DIR, file.file)).equals(file.content), file.file).to.equal(true);
  });

  it('proposes the expected points: recall ≥ 95 %, precision ≥ 99 %, no budget as actual, no unmapped row proposed', async () => {
    const score = await scoreCorpus(DIR);
    expect(score.files.map((f) => f.file)).to.have.members(files);
    for (const file of score.files) {
      expect(file.budgetAsActual, `${file.file}: budget as actual`).to.be.empty;
      expect(file.unmappedProposed, `${file.file}: unmapped row proposed`).to.be.empty;
    }
    console.log(scoreLines(score).join('\n'));
    expect(score.recall).to.be.at.least(0.95);
    expect(score.precision).to.be.at.least(0.99);
  });

  // Packs written without sight of the reader (test/fixtures/packs/README.md says how each was measured).
  const packs = [
    ['uk-eu', 'the UK and European packs it was improved against'],
    ['us', 'the US packs kept aside while it was first improved'],
    ['intl', 'the packs from other regions, measured first at 47 % recall'],
  ] as const;
  for (const [set, what] of packs)
    it(`meets the targets on ${what} (${set}): recall ≥ 95 %, precision ≥ 99 %, no budget as actual`, async () => {
      const score = await scoreCorpus(join(import.meta.dirname, 'fixtures', 'packs', set));
      console.log(scoreLines(score).join('\n'));
      expect(score.files).to.have.length.of.at.least(12);
      for (const file of score.files) expect(file.budgetAsActual, file.file).to.be.empty;
      expect(score.recall).to.be.at.least(0.95);
      expect(score.precision).to.be.at.least(0.99);
    });

  it('lists the lines it cannot map instead of guessing them', async () => {
    const { unmapped, proposals } = await figuresOf(join(DIR, 'three-tabs.xlsx'), 12);
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
