import { expect } from 'chai';
import { dialects, type TestDb } from './helpers/db.ts';
import { addDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { parseWaiting } from './helpers/parse.ts';
import { budgetBesideUnmapped, corpus } from './helpers/workbook-corpus.ts';
import { type WriteCell, writeXlsx } from './helpers/workbooks.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const typeOf = (file: string) => (file.endsWith('.pdf') ? 'application/pdf' : XLSX_TYPE);

for (const dialect of dialects) {
  describe(`proposals stored by the parse of a spreadsheet or a PDF's table (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    /** A corpus file, or a workbook's bytes, stored and parsed. */
    async function parsed(file: string, bytes?: Buffer): Promise<string> {
      const content = bytes ?? corpus().find((f) => f.file === file)!.content;
      const id = await addDocument(fx.repos, {
        company: fx.companies.acme,
        firmId: fx.firmA.id,
        name: file,
        body: content,
        contentType: typeOf(file),
      });
      await parseWaiting(t.db);
      return id;
    }

    const proposalsOf = (id: string) =>
      t
        .db('extraction_proposals as p')
        .leftJoin('metric_categories as c', 'c.id', 'p.category_id')
        .where('p.document_id', id)
        .orderBy(['p.sheet', 'p.cell'])
        .select('c.name as category', 'p.cell', 'p.date', 'p.value', 'p.kind', 'p.status', 'p.figures');

    it('completes a workbook whose every row maps with high confidence, its figures proposed with their cells', async () => {
      const id = await parsed('months-thousands-brackets.xlsx');
      const doc = await t.db('documents').where({ id }).first('parse_state');
      expect(doc.parse_state).to.equal('completed');
      const rows = await proposalsOf(id);
      expect(rows).to.have.length(12);
      expect(rows.find((r) => r.cell === 'B6')).to.deep.include({
        category: 'cost_of_goods_sold',
        date: '2026-01-31',
        value: '40000',
        kind: 'actual',
        status: 'proposed',
      });
    });

    it('leaves a workbook with rows it cannot map in needs-input, each such row one proposal without a category holding its figures', async () => {
      const id = await parsed('three-tabs.xlsx');
      const doc = await t.db('documents').where({ id }).first('parse_state', 'parse_note');
      expect(doc).to.deep.equal({ parse_state: 'needs-input', parse_note: '3 rows of figures need review' });
      const unmapped = (await proposalsOf(id)).filter((r) => r.category === null);
      expect(unmapped.map((r) => r.cell)).to.have.members(['B4', 'B5', 'B7']);
      const marketing = unmapped.find((r) => r.cell === 'B7')!;
      expect(marketing).to.deep.include({ value: null, status: 'proposed', kind: 'actual' });
      expect(JSON.parse(marketing.figures)).to.deep.equal([
        ['B7', '2026-01-31', 'month', '-30000'],
        ['C7', '2026-02-28', 'month', '-31000'],
        ['D7', '2026-03-31', 'month', '-32000'],
      ]);
      const mapped = (await proposalsOf(id)).filter((r) => r.category !== null);
      expect(mapped.every((r) => r.figures === null && r.value !== null)).to.equal(true);
    });

    it('keeps an unmapped row’s budget figures beside its actuals as a proposal of their own', async () => {
      const id = await parsed('consulting.xlsx', budgetBesideUnmapped());
      const unmapped = (await proposalsOf(id)).filter((r) => r.category === null);
      expect(unmapped.map((r) => [r.cell, r.kind])).to.deep.equal([
        ['B5', 'actual'],
        ['D5', 'budget'],
      ]);
      expect(JSON.parse(unmapped[1]!.figures)).to.deep.equal([
        ['D5', '2026-01-31', 'month', '12'],
        ['E5', '2026-02-28', 'month', '14'],
      ]);
    });

    it('stores every proposal of a large sheet exactly, labels with quotes, braces, commas and backslashes included', async () => {
      const labels = ['Fees "EU", {net}', 'Back\\slash \\ line', 'Ünïcode – £ ‘quoted’', 'NULL', 'Line'];
      const rows: WriteCell[][] = [['Acme'], [], ['', 'Jan-26', 'Feb-26']];
      for (let i = 0; i < 2100; i++) rows.push([`${labels[i % labels.length]} ${i}`, i + 1, -i - 1]);
      rows.push(['Revenue', 100, 200]);
      const id = await parsed('many.xlsx', writeXlsx([{ name: 'Lines, "all" {x}', rows }]));
      const stored = await t
        .db('extraction_proposals')
        .where({ document_id: id })
        .select('sheet', 'row_label', 'sheet_row', 'sheet_index', 'figures', 'confidence', 'category_id');
      expect(stored).to.have.length(2102);
      expect(new Set(stored.map((r) => r.sheet))).to.deep.equal(new Set(['Lines, "all" {x}']));
      const byLabel = new Map(stored.map((r) => [r.row_label, r]));
      for (const i of [0, 1, 2, 3, 4, 2099]) {
        const row = byLabel.get(`${labels[i % labels.length]} ${i}`);
        expect(row, `line ${i}`).to.deep.include({ sheet_row: i + 4, sheet_index: 0, category_id: null });
        expect(JSON.parse(row!.figures)).to.deep.equal([
          [`B${i + 4}`, '2026-01-31', 'month', String(i + 1)],
          [`C${i + 4}`, '2026-02-28', 'month', String(-i - 1)],
        ]);
      }
      const revenue = stored.filter((r) => r.row_label === 'Revenue');
      expect(revenue.map((r) => Number(r.confidence))).to.deep.equal([0.95, 0.95]);
    });

    it('proposes the figures of a table printed in a PDF, the budget block as budget, each with its page and cell', async () => {
      const id = await parsed('pdf-quarterly-budget.pdf');
      const doc = await t.db('documents').where({ id }).first('parse_state');
      expect(doc.parse_state).to.equal('completed');
      const rows = await proposalsOf(id);
      expect(rows).to.have.length(12);
      expect(rows.filter((r) => r.kind === 'budget')).to.have.length(6);
      expect(rows.find((r) => r.cell === 'C5')).to.deep.include({
        category: 'total_operating_expenses',
        date: '2026-06-30',
        value: '2000000',
        kind: 'actual',
      });
    });
  });
}
