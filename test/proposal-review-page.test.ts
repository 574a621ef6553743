import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { RunningServer } from '../server/http.ts';
import { hasChromium, launchChromium } from './helpers/browser.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { addDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { parseWaiting } from './helpers/parse.ts';
import { startTestServer } from './helpers/server.ts';
import { corpus } from './helpers/workbook-corpus.ts';
import { writeXlsx } from './helpers/workbooks.ts';

for (const dialect of dialects) {
  describe(`the review page of a spreadsheet's figures (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let browser: Browser | undefined;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      if (hasChromium) browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
      await t?.drop();
    });

    /** A corpus workbook stored and parsed; its review page, signed in as the firm's admin. */
    async function reviewPageOf(
      workbook: string | { file: string; content: Buffer },
      company: { id: string } = fx.companies.beta,
    ) {
      const { file, content } =
        typeof workbook === 'string' ? corpus().find((f) => f.file === workbook)! : workbook;
      const id = await addDocument(fx.repos, {
        company,
        firmId: fx.firmA.id,
        name: file,
        body: content,
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      });
      await parseWaiting(t.db);
      const path = `/account/documents/${id}/proposals`;
      const page = await (await browser!.newContext()).newPage();
      await page.goto(`${server.url}/login?next=${encodeURIComponent(path)}`);
      await page.getByLabel('Email').fill('admin@alpha.test');
      await page.getByLabel('Password').fill('fixture-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`**${path}`);
      return page;
    }

    it('draws budget columns beside the actual ones in sheet order, and a sheet whose periods run down with them across', async function () {
      if (!browser) this.skip();
      const budget = (await reviewPageOf('budget-beside-actual.xlsx')).locator('table[data-sheet="P&L"]');
      expect(await budget.locator('thead th').allTextContents()).to.deep.equal([
        'Row',
        'Metric',
        'Status',
        '2026-01-31',
        '2026-02-28',
        '2026-03-31',
        'Budget 2026-01-31',
        'Budget 2026-02-28',
        'Budget 2026-03-31',
      ]);
      const turnover = budget.locator('tbody tr', { hasText: 'Turnover' });
      expect(await turnover.locator('td[title]').allTextContents()).to.deep.equal([
        '120',
        '135',
        '150',
        '110',
        '130',
        '160',
      ]);
      expect(await turnover.locator('td[title]').last().getAttribute('title')).to.equal('P&L!G5');
      const down = (await reviewPageOf('transposed.xlsx')).locator('table.sheet');
      expect(await down.locator('tbody th').allTextContents()).to.deep.equal([
        'Revenue',
        'Headcount',
        'Cash at bank',
      ]);
      const headcount = down.locator('tbody tr', { hasText: 'Headcount' });
      expect(await headcount.locator('td[title]').allTextContents()).to.deep.equal(['12', '13', '15']);
      expect(await headcount.locator('td[title]').first().getAttribute('title')).to.match(/!C3$/);
    });

    it('acts on exactly the rows shown when a workbook has more than the page draws: the rest stay open', async function () {
      if (!browser) this.skip();
      const header = ['', 'Jan-25', 'Feb-25'];
      const filler = Array.from({ length: 1_000 }, (_, i): (string | number)[] => [
        `Line item ${i + 1}`,
        i,
        i + 1,
      ]);
      const content = writeXlsx([
        { name: 'P&L', rows: [header, ['Revenue', 100, 110], ...filler] },
        { name: 'KPI', rows: [header, ['Headcount', 12, 13]] },
      ]);
      const page = await reviewPageOf({ file: 'Long pack.xlsx', content }, fx.companies.gamma);
      await page
        .getByText('The buttons act on the 1000 table rows shown only; the other 2 stay open.')
        .waitFor();
      expect(await page.locator('table[data-sheet="KPI"]').count()).to.equal(0);
      // The form still needs its CSRF token: without it nothing is confirmed.
      const ids = await page.locator('form[action$="/confirm"] input[name="ids"]').getAttribute('value');
      const forged = await page.request.post(`${page.url()}/confirm`, {
        form: { ids: ids! },
        maxRedirects: 0,
      });
      expect(forged.status()).to.equal(403);
      await page.getByRole('button', { name: 'Confirm the 2 mapped figures shown', exact: true }).click();
      await page.getByText('The mapped figures shown are confirmed').waitFor();
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[3]!);
      const status = async (label: string) =>
        (
          await t.db('extraction_proposals').where({ document_id: id, row_label: label }).distinct('status')
        ).map((r: { status: string }) => r.status);
      expect(await status('Revenue')).to.deep.equal(['confirmed']);
      expect(ids!.split(' ')).to.have.length(2);
      expect(await status('Headcount')).to.deep.equal(['proposed']);
      expect(await status('Line item 1000')).to.deep.equal(['proposed']);
      // 999 unmapped lines of two figures are shown, and each is rejected; the two lines not shown stay open.
      await page.getByRole('button', { name: 'Reject the 1998 open figures shown', exact: true }).click();
      await page.getByText('The open figures shown are rejected.').waitFor();
      expect(await status('Line item 999')).to.deep.equal(['rejected']);
      expect(await status('Line item 1000')).to.deep.equal(['proposed']);
      expect(await status('Headcount')).to.deep.equal(['proposed']);
      const doc = await t.db('documents').where({ id }).first('parse_state');
      expect(doc.parse_state).to.equal('needs-input');
    });

    it('draws no more rows than its buttons can post, so a confirm of more than 10,000 figures is never refused', async function () {
      if (!browser) this.skip();
      const labels = [
        'Revenue',
        'Cost of sales',
        'Gross profit',
        'Operating expenses',
        'EBITDA',
        'Operating profit',
        'Net income',
        'Net profit',
        'Cash',
        'Accounts receivable',
        'Accounts payable',
        'Current assets',
        'Current liabilities',
        'Total assets',
        'Total liabilities',
        'Equity',
        'Headcount',
        'ARR',
        'Net burn',
        'Runway',
      ];
      const months = Array.from(
        { length: 48 },
        (_, i) =>
          `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][i % 12]}-${22 + Math.floor(i / 12)}`,
      );
      // The same pack for twelve entities: one point, one figure, on every sheet, so a confirm-all writes it once.
      const sheets = Array.from({ length: 12 }, (_, s) => ({
        name: `Entity ${s + 1}`,
        rows: [
          ['', ...months],
          ...labels.map((label, l) => [label, ...months.map((_, m) => l * 100 + m + 1)]),
        ],
      }));
      const page = await reviewPageOf(
        { file: 'Group pack.xlsx', content: writeXlsx(sheets) },
        fx.companies.gamma,
      );
      const ids = (await page
        .locator('form[action$="/confirm"] input[name="ids"]')
        .getAttribute('value'))!.split(' ');
      expect(ids.length).to.be.at.most(10_000).and.above(9_000);
      await page
        .getByText(/The buttons act on the \d+ table rows shown only; the other \d+ stay open\./)
        .waitFor();
      await page.getByRole('button', { name: /^Confirm the \d+ mapped figures shown$/ }).click();
      await page.getByText('The mapped figures shown are confirmed').waitFor();
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[3]!);
      const counts = await t
        .db('extraction_proposals')
        .where({ document_id: id })
        .groupBy('status')
        .select('status')
        .count('* as n');
      const byStatus = Object.fromEntries(counts.map((c) => [String(c.status), Number(c.n)]));
      expect(byStatus).to.deep.equal({ confirmed: ids.length, proposed: 12 * 20 * 48 - ids.length });
    });

    it('shows each sheet as a grid of its periods and lines, the mapped ones highlighted, then confirms the mapped figures and rejects the rest', async function () {
      if (!browser) this.skip();
      const { content } = corpus().find((f) => f.file === 'three-tabs.xlsx')!;
      const id = await addDocument(fx.repos, {
        company: fx.companies.acme,
        firmId: fx.firmA.id,
        name: 'Q1 pack.xlsx',
        body: content,
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      });
      await parseWaiting(t.db);

      const path = `/account/documents/${id}/proposals`;
      const page = await (await browser!.newContext()).newPage();
      await page.goto(`${server.url}/login?next=${encodeURIComponent(path)}`);
      await page.getByLabel('Email').fill('admin@alpha.test');
      await page.getByLabel('Password').fill('fixture-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`**${path}`);
      expect(await page.locator('tr[data-mapped="yes"] mark').count()).to.equal(6);
      expect(await page.locator('tr[data-mapped="no"]').count()).to.equal(3);
      expect(await page.locator('tr[data-mapped="no"] mark').count()).to.equal(0);
      // Each sheet as a grid: its periods across, its lines in sheet order, each value titled with its cell.
      const pl = page.locator('table[data-sheet="P&L"]');
      expect(await pl.locator('thead th').allTextContents()).to.deep.equal([
        'Row',
        'Metric',
        'Status',
        '2026-01-31',
        '2026-02-28',
        '2026-03-31',
      ]);
      expect(await pl.locator('tbody th').allTextContents()).to.deep.equal([
        'Product revenue',
        'Services revenue',
        'Total revenue',
        'Marketing',
        'Net income/(loss)',
      ]);
      expect(await pl.locator('td[title="P&L!B7"]').textContent()).to.equal('-30000');
      expect(await pl.locator('td[title="P&L!D6"]').textContent()).to.equal('150000');
      const total = pl.locator('tbody tr', { hasText: 'Total revenue' });
      expect(await total.getAttribute('data-mapped')).to.equal('yes');
      expect(await total.locator('mark').textContent()).to.equal('revenue');
      const marketing = pl.locator('tbody tr', { hasText: 'Marketing' });
      expect(await marketing.getAttribute('data-mapped')).to.equal('no');
      const background = (row: typeof total) =>
        row.locator('th').evaluate((th) => getComputedStyle(th).backgroundColor);
      expect(await background(total)).to.not.equal(await background(marketing));
      expect(
        await page.locator('table[data-sheet="Balance sheet"] tr[data-mapped="yes"]').count(),
      ).to.be.above(0);

      // Sheets in the workbook's order, not by name.
      expect(
        await page.locator('table.sheet').evaluateAll((ts) => ts.map((t) => t.dataset.sheet)),
      ).to.deep.equal(['P&L', 'Balance sheet', 'KPI']);
      expect(await page.getByText('The buttons act on').count()).to.equal(0);
      await page.getByRole('button', { name: 'Confirm the 18 mapped figures shown', exact: true }).click();
      await page.getByText('The mapped figures shown are confirmed').waitFor();
      await page.getByRole('button', { name: 'Reject the 9 open figures shown', exact: true }).click();
      await page.getByText('The open figures shown are rejected.').waitFor();
      const doc = await t.db('documents').where({ id }).first('parse_state');
      expect(doc.parse_state).to.equal('completed');
      const data = await t
        .db('metric_data')
        .where({ company_id: fx.companies.acme.id })
        .count({ n: '*' })
        .first();
      expect(Number(data?.n)).to.equal(18);
    });
  });
}
