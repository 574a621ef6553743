import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, makeUser } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { signInFlow, WebClient } from './helpers/oauth.ts';
import { parseWaiting } from './helpers/parse.ts';
import { api, EVERY_TOOLSET, startTestServer } from './helpers/server.ts';
import { budgetBesideUnmapped, corpus } from './helpers/workbook-corpus.ts';
import { writeXlsx } from './helpers/workbooks.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface Row {
  sheet: string;
  row: number;
  label: string;
  category: string | null;
  kind: string;
  status: string;
  confidence: number;
  id: string | null;
  cells: [string | null, string, string | null, string | null][];
}

/** The proposals of a listed row: an unmapped row's one, or each cell's. */
const idsOf = (r: Row) => (r.id ? [r.id] : r.cells.map((c) => c[0]!));
const refsOf = (r: Row) => r.cells.map((c) => c[1]);
const datesOf = (r: Row) => r.cells.map((c) => c[2]);
const valuesOf = (r: Row) => r.cells.map((c) => c[3]);

/** Management accounts with revenue on the P&L and again on a summary tab: the summary's January as given. */
function revenueTwice(summaryJanuary: number): Buffer {
  const header = ['', 'Jan-25', 'Feb-25', 'Mar-25'];
  return writeXlsx([
    { name: 'P&L', rows: [['Profit and loss'], header, ['Revenue', 120, 135, 150]] },
    {
      name: 'Summary',
      rows: [['KPIs'], header, ['Revenue', summaryJanuary, 135, 150], ['Headcount', 12, 13, 15]],
    },
  ]);
}

for (const dialect of dialects) {
  describe(`review of the figures proposed from a spreadsheet (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client | undefined;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET } });
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    /** Uploads a corpus workbook (or a workbook's bytes) over REST and runs the parser over it. */
    async function uploaded(
      file: string | Buffer,
      name = String(file),
      companyId = fx.companies.acme.id,
    ): Promise<string> {
      const content = typeof file === 'string' ? corpus().find((f) => f.file === file)!.content : file;
      const form = new FormData();
      form.append('company_id', companyId);
      form.append('file', new Blob([new Uint8Array(content)], { type: XLSX_TYPE }), name);
      const res = await api(server.url, '/v1/documents/', {
        token: fx.admin.pat,
        method: 'POST',
        body: form,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await parseWaiting(t.db);
      return (res.body as { document_id: string }).document_id;
    }

    const rowsOf = async (id: string, token = fx.admin.pat): Promise<Row[]> => {
      const res = await api(server.url, `/v1/documents/${id}/proposals/?page_size=100`, { token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body as { results: Row[] }).results;
    };
    const post = (id: string, action: 'confirm' | 'reject', body: unknown, token = fx.admin.pat) =>
      api(server.url, `/v1/documents/${id}/proposals/${action}/`, { token, method: 'POST', body });
    const metrics = async (companyId: string, query = '') => {
      const res = await api(server.url, `/v1/metrics/?company_id=${companyId}&page_size=1000${query}`, {
        token: fx.admin.pat,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body as { results: Record<string, unknown>[] }).results;
    };
    const stateOf = async (id: string) =>
      ((await t.db('documents').where({ id }).first('parse_state')) as { parse_state: string }).parse_state;

    it('lists a needs-input document’s proposals one entry per table row, unmapped rows with category null', async () => {
      const id = await uploaded('three-tabs.xlsx', 'Q1 accounts.xlsx');
      expect(await stateOf(id)).to.equal('needs-input');
      const rows = await rowsOf(id);
      const revenue = rows.find((r) => r.label === 'Total revenue')!;
      expect(revenue).to.deep.include({
        sheet: 'P&L',
        category: 'revenue',
        kind: 'actual',
        status: 'proposed',
      });
      expect(refsOf(revenue)).to.deep.equal(['B6', 'C6', 'D6']);
      expect(valuesOf(revenue)).to.deep.equal(['120000', '135000', '150000']);
      expect(datesOf(revenue)).to.deep.equal(['2026-01-31', '2026-02-28', '2026-03-31']);
      expect(revenue).to.deep.include({ row: 6, id: null });
      const marketing = rows.find((r) => r.label === 'Marketing')!;
      expect(marketing).to.deep.include({ category: null, confidence: 0, row: 7 });
      expect(marketing.id).to.be.a('string');
      expect(marketing.cells).to.deep.equal([
        [null, 'B7', '2026-01-31', '-30000'],
        [null, 'C7', '2026-02-28', '-31000'],
        [null, 'D7', '2026-03-31', '-32000'],
      ]);
      expect(rows.filter((r) => r.category === null).map((r) => r.label)).to.have.members([
        'Product revenue',
        'Services revenue',
        'Marketing',
      ]);
    });

    it('confirms with corrections through the metrics service, the source naming the file, sheet and cell, and completes the document once reviewed', async () => {
      const id = await uploaded('three-tabs.xlsx', 'Q1 review.xlsx', fx.companies.beta.id);
      const rows = await rowsOf(id);
      const marketing = rows.find((r) => r.label === 'Marketing')!;
      const unmapped = rows
        .filter((r) => r.category === null && r.label !== 'Marketing')
        .flatMap((r) => idsOf(r));
      const confirm = await post(id, 'confirm', {
        corrections: [{ ids: idsOf(marketing), category: 'total_operating_expenses', flip_sign: true }],
        ids: rows.filter((r) => r.category !== null || r.label === 'Marketing').flatMap((r) => idsOf(r)),
        on_conflict: 'error',
      });
      expect(confirm.status, JSON.stringify(confirm.body)).to.equal(200);
      expect(confirm.body).to.deep.include({ parse_state: 'needs-input', open: 2 });
      expect((confirm.body as { written: { created: number } }).written.created).to.equal(21);
      const reject = await post(id, 'reject', { ids: unmapped });
      expect(reject.status, JSON.stringify(reject.body)).to.equal(200);
      expect(reject.body).to.deep.include({ parse_state: 'completed', rejected: 2, open: 0 });
      expect(await stateOf(id)).to.equal('completed');

      const opex = await metrics(fx.companies.beta.id, '&category=total_operating_expenses');
      expect(opex.map((m) => [m.date, m.value])).to.deep.equal([
        ['2026-01-31', '30000'],
        ['2026-02-28', '31000'],
        ['2026-03-31', '32000'],
      ]);
      expect(opex[0]!.detailed_source).to.equal('Q1 review.xlsx, P&L!B7');
      const cash = await metrics(fx.companies.beta.id, '&category=cash_in_bank');
      expect(cash[0]).to.deep.include({
        value: '900000',
        detailed_source: 'Q1 review.xlsx, Balance sheet!B3',
      });
      const events = await t.db('events').where({ company_id: fx.companies.beta.id, type: 'metric.created' });
      expect(events.length).to.be.greaterThan(0);
    });

    it('confirms an unmapped row named in a correction as one proposal, each of its figures written with its cell, on_conflict deciding over existing data', async () => {
      const id = await uploaded('three-tabs.xlsx', 'Row review.xlsx', fx.companies.beta.id);
      const services = (await rowsOf(id)).find((r) => r.label === 'Services revenue')!;
      expect(services).to.deep.include({ category: null, row: 5 });
      const res = await post(id, 'confirm', {
        ids: [services.id],
        corrections: [{ ids: [services.id], category: 'net_other_income', multiplier: '2', flip_sign: true }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ confirmed: 1, parse_state: 'needs-input' });
      expect((res.body as { written: { created: number } }).written.created).to.equal(3);
      const written = await metrics(fx.companies.beta.id, '&category=net_other_income');
      expect(written.map((m) => [m.date, m.value, m.detailed_source])).to.deep.equal([
        ['2026-01-31', '-40000', 'Row review.xlsx, P&L!B5'],
        ['2026-02-28', '-50000', 'Row review.xlsx, P&L!C5'],
        ['2026-03-31', '-60000', 'Row review.xlsx, P&L!D5'],
      ]);
      const listed = (await rowsOf(id)).find((r) => r.label === 'Services revenue')!;
      expect(listed).to.deep.include({ id: services.id, status: 'confirmed', category: 'net_other_income' });
      expect(valuesOf(listed)).to.deep.equal(['-40000', '-50000', '-60000']);
      const again = await post(id, 'confirm', { ids: [services.id] });
      expect(again.body).to.deep.include({ confirmed: 0 });
      expect(await metrics(fx.companies.beta.id, '&category=net_other_income')).to.have.length(3);
      // Another row onto the same points: on_conflict decides, and a refusal names the row and its cell.
      const product = (await rowsOf(id)).find((r) => r.label === 'Product revenue')!;
      const onto = { ids: [product.id], corrections: [{ ids: [product.id], category: 'net_other_income' }] };
      const refused = await post(id, 'confirm', { ...onto, on_conflict: 'error' });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(JSON.stringify(refused.body)).to.include(`proposal ${product.id} (P&L!B4)`);
      const skipped = await post(id, 'confirm', { ...onto, on_conflict: 'skip' });
      expect((skipped.body as { written: { skipped: number } }).written.skipped).to.equal(3);
      expect(
        (await metrics(fx.companies.beta.id, '&category=net_other_income')).map((m) => m.value),
      ).to.deep.equal(['-40000', '-50000', '-60000']);
    });

    it('writes an unmapped row’s budget figures, confirmed with a category, into the document’s budget', async () => {
      const id = await uploaded(budgetBesideUnmapped(), 'Plan.xlsx', fx.companies.beta.id);
      const consulting = (await rowsOf(id)).filter((r) => r.label === 'Consulting fees');
      expect(consulting.map((r) => [r.kind, refsOf(r)])).to.deep.equal([
        ['actual', ['B5', 'C5']],
        ['budget', ['D5', 'E5']],
      ]);
      const ids = consulting.map((r) => r.id!);
      const res = await post(id, 'confirm', { ids, corrections: [{ ids, category: 'cash_receipts' }] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const budgetId = (res.body as { budget_id: string }).budget_id;
      const actual = await metrics(fx.companies.beta.id, '&category=cash_receipts');
      expect(actual.map((m) => [m.value, m.detailed_source])).to.deep.equal([
        ['10', 'Plan.xlsx, P&L!B5'],
        ['11', 'Plan.xlsx, P&L!C5'],
      ]);
      const budgeted = await metrics(fx.companies.beta.id, `&category=cash_receipts&budget_id=${budgetId}`);
      expect(budgeted.map((m) => [m.value, m.detailed_source])).to.deep.equal([
        ['12', 'Plan.xlsx, P&L!D5'],
        ['14', 'Plan.xlsx, P&L!E5'],
      ]);
    });

    it('counts a half-reviewed document’s open proposals: each unmapped row one, each mapped cell one', async () => {
      const id = await uploaded('three-tabs.xlsx', 'Half.xlsx', fx.companies.gamma.id);
      const rows = await rowsOf(id);
      const mappedCells = rows.filter((r) => r.category !== null).flatMap(idsOf).length;
      const unmapped = rows.filter((r) => r.category === null);
      expect(unmapped.map((r) => idsOf(r).length)).to.deep.equal([1, 1, 1]);
      const revenue = rows.find((r) => r.label === 'Total revenue')!;
      const half = await post(id, 'confirm', { ids: idsOf(revenue) });
      expect(half.body).to.deep.include({ confirmed: 3, open: mappedCells - 3 + 3 });
      const product = unmapped.find((r) => r.label === 'Product revenue')!;
      const rejected = await post(id, 'reject', { ids: [product.id] });
      expect(rejected.body).to.deep.include({
        rejected: 1,
        open: mappedCells - 3 + 2,
        parse_state: 'needs-input',
      });
      expect((await rowsOf(id)).find((r) => r.label === 'Product revenue')).to.deep.include({
        status: 'rejected',
        id: product.id,
      });
    });

    it('still lists and confirms an unmapped cell stored one proposal per cell, as before migration 028', async () => {
      const id = await uploaded('months-text.xlsx', 'Old cells.xlsx', fx.companies.gamma.id);
      const doc = await t.db('documents').where({ id }).first('firm_id', 'company_id');
      await t.db('extraction_proposals').insert({
        id: 'oldcell0000000000000000000000001',
        ...doc,
        document_id: id,
        sheet: 'P&L',
        sheet_row: null,
        cell: 'C9',
        row_label: 'Grants',
        category_id: null,
        date: '2026-02-28',
        cadence: 'month',
        value: '700',
        currency: 'USD',
        kind: 'actual',
        confidence: 0,
        figures: null,
        status: 'proposed',
        created_at: '2026-05-01T10:00:00.000Z',
      });
      const grants = (await rowsOf(id)).find((r) => r.label === 'Grants')!;
      expect(grants).to.deep.include({ row: 9, id: null, category: null });
      expect(grants.cells).to.deep.equal([['oldcell0000000000000000000000001', 'C9', '2026-02-28', '700']]);
      const res = await post(id, 'confirm', {
        ids: idsOf(grants),
        corrections: [{ ids: idsOf(grants), category: 'cash_receipts' }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const written = await metrics(fx.companies.gamma.id, '&category=cash_receipts');
      expect(written.map((m) => [m.date, m.value, m.detailed_source])).to.deep.equal([
        ['2026-02-28', '700', 'Old cells.xlsx, P&L!C9'],
      ]);
    });

    it('writes nothing new when the same proposals are confirmed twice', async () => {
      const id = await uploaded('months-text.xlsx', 'Twice.xlsx', fx.companies.gamma.id);
      const first = await post(id, 'confirm', {});
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const before = await t.db('metric_history').count({ n: '*' }).first();
      const again = await post(id, 'confirm', {});
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.include({ confirmed: 0, parse_state: 'completed' });
      expect((again.body as { written: { created: number } }).written.created).to.equal(0);
      const ids = (await rowsOf(id)).flatMap((r) => idsOf(r));
      const byIds = await post(id, 'confirm', { ids });
      expect(byIds.status).to.equal(200);
      expect(byIds.body).to.deep.include({ confirmed: 0 });
      expect(await t.db('metric_history').count({ n: '*' }).first()).to.deep.equal(before);
    });

    it('follows on_conflict against existing data: error refuses all with 409, skip keeps, overwrite replaces', async () => {
      const first = await uploaded('months-text.xlsx', 'Conflict A.xlsx', fx.companies.acme.id);
      expect((await post(first, 'confirm', {})).status).to.equal(200);
      const second = await uploaded(
        'months-thousands-brackets.xlsx',
        'Conflict B.xlsx',
        fx.companies.acme.id,
      );
      const count = async () => (await metrics(fx.companies.acme.id)).length;
      const before = await count();
      const refused = await post(second, 'confirm', { on_conflict: 'error' });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(JSON.stringify(refused.body)).to.include('proposal ');
      expect((await rowsOf(second)).every((r) => r.status === 'proposed')).to.equal(true);
      const skipped = await post(second, 'confirm', { on_conflict: 'skip' });
      expect(skipped.status, JSON.stringify(skipped.body)).to.equal(200);
      expect((skipped.body as { written: { skipped: number } }).written.skipped).to.be.greaterThan(0);
      expect(await count()).to.equal(before);
      const third = await uploaded('months-thousands-brackets.xlsx', 'Conflict C.xlsx', fx.companies.acme.id);
      const overwritten = await post(third, 'confirm', { on_conflict: 'overwrite' });
      expect(overwritten.status, JSON.stringify(overwritten.body)).to.equal(200);
      expect(
        (overwritten.body as { written: { overwritten: number } }).written.overwritten,
      ).to.be.greaterThan(0);
      expect(await count()).to.equal(before);
      const revenue = await metrics(fx.companies.acme.id, '&category=revenue');
      expect(revenue.every((m) => String(m.detailed_source).startsWith('Conflict C.xlsx, '))).to.equal(true);
    });

    it('writes budget figures into a budget named after the document, never as actuals', async () => {
      const id = await uploaded('budget-beside-actual.xlsx', 'Budget 2026.xlsx', fx.companies.gamma.id);
      const res = await post(id, 'confirm', {});
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const budgetId = (res.body as { budget_id: string }).budget_id;
      const budget = await t.db('budgets').where({ id: budgetId }).first('name', 'company_id');
      expect(budget).to.deep.equal({ name: 'Budget 2026.xlsx', company_id: fx.companies.gamma.id });
      const actual = await metrics(fx.companies.gamma.id, '&category=revenue');
      expect(actual.map((m) => m.value)).to.deep.equal(['120', '135', '150']);
      const budgeted = await metrics(fx.companies.gamma.id, `&category=revenue&budget_id=${budgetId}`);
      expect(budgeted.map((m) => m.value)).to.deep.equal(['110', '130', '160']);
    });

    it('remembers a confirmed mapping: the company’s next file maps that label with high confidence', async () => {
      const first = await uploaded('three-tabs.xlsx', 'Jan pack.xlsx', fx.companies.gamma.id);
      const marketing = (await rowsOf(first)).find((r) => r.label === 'Marketing')!;
      const res = await post(first, 'confirm', {
        ids: idsOf(marketing),
        corrections: [{ ids: idsOf(marketing), category: 'total_operating_expenses', flip_sign: true }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const next = await uploaded('three-tabs.xlsx', 'Feb pack.xlsx', fx.companies.gamma.id);
      const again = (await rowsOf(next)).find((r) => r.label === 'Marketing')!;
      expect(again).to.deep.include({ category: 'total_operating_expenses', confidence: 0.99 });
      expect(valuesOf(again)).to.deep.equal(['30000', '31000', '32000']);
      const elsewhere = await uploaded('three-tabs.xlsx', 'Other co.xlsx', fx.companies.acme.id);
      expect((await rowsOf(elsewhere)).find((r) => r.label === 'Marketing')!.category).to.equal(null);
    });

    it('refuses bad reviews with 400 or 404 and writes nothing', async () => {
      const id = await uploaded('three-tabs.xlsx', 'Bad inputs.xlsx');
      const rows = await rowsOf(id);
      const marketing = rows.find((r) => r.label === 'Marketing')!;
      const mapped = rows.find((r) => r.category !== null)!;
      const before = await t.db('metric_history').count({ n: '*' }).first();
      const cases: [unknown, number, string][] = [
        [{ ids: ['nope'] }, 400, 'ids[0]'],
        [{ ids: idsOf(marketing) }, 400, 'was not mapped'],
        [{ corrections: [{ ids: idsOf(marketing), category: 'revnue' }] }, 400, 'corrections[0].category'],
        [{ corrections: [{ ids: idsOf(marketing), multiplier: '-3' }] }, 400, 'corrections[0].multiplier'],
        // A mapped row's figures are multiplied as they are planned: a multiplier that is not a plain
        // decimal is refused before that, not met as one.
        ...['1,000', 'abc', '1e3', ''].map((multiplier): [unknown, number, string] => [
          { corrections: [{ ids: idsOf(mapped), multiplier }] },
          400,
          'corrections[0].multiplier',
        ]),
        [{ corrections: [{ ids: ['nope'], flip_sign: true }] }, 400, 'corrections[0].ids[0]'],
        [{ on_conflict: 'replace' }, 400, 'on_conflict'],
      ];
      for (const [body, status, text] of cases) {
        const res = await post(id, 'confirm', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        expect(JSON.stringify(res.body)).to.include(text);
      }
      // Marketing mapped to revenue repeats the revenue row's months: the refusal names both proposals
      // by id and cell, never the metrics service's items[i] of a request nobody sent.
      const revenue = rows.find((r) => r.category === 'revenue')!;
      const twice = await post(id, 'confirm', {
        ids: [...idsOf(revenue), ...idsOf(marketing)],
        corrections: [{ ids: idsOf(marketing), category: 'revenue' }],
      });
      expect(twice.status, JSON.stringify(twice.body)).to.equal(400);
      expect(twice.body.detail).to.not.include('items[');
      expect(twice.body.detail).to.include(`proposal ${idsOf(revenue)[0]} (${revenue.sheet}!`);
      expect((await post('unknown', 'confirm', {})).status).to.equal(404);
      expect((await post(id, 'confirm', {}, fx.other.pat)).status).to.equal(404);
      expect(
        (await api(server.url, `/v1/documents/${id}/proposals/`, { token: fx.other.pat })).status,
      ).to.equal(404);
      const viewer = await post(id, 'confirm', {}, fx.viewer.pat);
      expect(viewer.status).to.equal(403);
      // The proposals show the document's cells: an editor without access to documents reviews none.
      const blind = await makeUser(fx.repos, fx.firmA.id, 'blind-editor@alpha.test', 'editor', {
        can_view_documents: false,
      });
      for (const action of ['confirm', 'reject'] as const) {
        const res = await post(id, action, action === 'confirm' ? { ids: idsOf(mapped) } : {}, blind.pat);
        expect(res.status, `${action} ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.detail).to.include('access to documents');
      }
      expect((await rowsOf(id)).every((r) => r.status === 'proposed')).to.equal(true);
      const readOnly = (await signInFlow(server.url, new WebClient(server.url), { scope: 'read' })).tokens
        .access_token;
      const scoped = await api(server.url, '/mcp', {
        token: readOnly,
        method: 'POST',
        headers: { Accept: 'application/json, text/event-stream' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'reject_document_proposals', arguments: { document_id: id } },
        },
      });
      expect(scoped.status).to.equal(403);
      expect(scoped.headers.get('www-authenticate')).to.include('error="insufficient_scope"');
      expect(await t.db('metric_history').count({ n: '*' }).first()).to.deep.equal(before);
      expect((await rowsOf(id)).every((r) => r.status === 'proposed')).to.equal(true);
    });

    it('confirms every figure of a workbook holding the same figure on two sheets, writing each point once with the first sheet as its source', async () => {
      const id = await uploaded(revenueTwice(120), 'Revenue twice.xlsx', fx.companies.beta.id);
      const res = await post(id, 'confirm', {});
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ confirmed: 9, open: 0, parse_state: 'completed' });
      expect(res.body.written).to.deep.include({ created: 6 });
      expect((await rowsOf(id)).every((r) => r.status === 'confirmed')).to.equal(true);
      const written = (await t
        .db('metric_data')
        .where({ company_id: fx.companies.beta.id })
        .where('date', 'like', '2025-%')
        .orderBy(['date', 'detailed_source'])
        .select('date', 'value', 'detailed_source')) as {
        date: string;
        value: unknown;
        detailed_source: string;
      }[];
      const revenue = written.filter(
        (w) =>
          w.detailed_source.includes('!B3') ||
          w.detailed_source.includes('!C3') ||
          w.detailed_source.includes('!D3'),
      );
      expect(revenue.map((w) => w.detailed_source)).to.deep.equal([
        'Revenue twice.xlsx, P&L!B3',
        'Revenue twice.xlsx, P&L!C3',
        'Revenue twice.xlsx, P&L!D3',
      ]);
      expect(written).to.have.length(6);
    });

    it('refuses to confirm one point given two different values on two sheets, naming both proposals and cells, and writes nothing', async () => {
      const id = await uploaded(revenueTwice(121), 'Revenue differs.xlsx', fx.companies.beta.id);
      const before = await t.db('metric_history').count({ n: '*' }).first();
      const rows = await rowsOf(id);
      const pl = rows.find((r) => r.sheet === 'P&L' && r.label === 'Revenue')!;
      const summary = rows.find((r) => r.sheet === 'Summary' && r.label === 'Revenue')!;
      const res = await post(id, 'confirm', {});
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.detail).to.include(`proposal ${pl.cells[0]![0]} (P&L!B3)`);
      expect(res.body.detail).to.include(`proposal ${summary.cells[0]![0]} (Summary!B3)`);
      // Only January differs: the months that agree are not named (cells, not ids, which are random).
      expect(res.body.detail).to.not.match(/!C3\)|!D3\)/);
      expect(await t.db('metric_history').count({ n: '*' }).first()).to.deep.equal(before);
      expect((await rowsOf(id)).every((r) => r.status === 'proposed')).to.equal(true);
    });

    it('lists sheets in the workbook’s order, not by name', async () => {
      const table = (label: string) => [
        ['', 'Jan-25', 'Feb-25'],
        [label, 10, 11],
      ];
      const workbook = writeXlsx([
        { name: 'Sheet2', rows: table('Revenue') },
        { name: 'Sheet10', rows: table('Headcount') },
        { name: 'A summary', rows: table('Cash at bank') },
      ]);
      const id = await uploaded(workbook, 'Sheets in order.xlsx', fx.companies.beta.id);
      const sheets = (await rowsOf(id)).map((r) => r.sheet);
      expect([...new Set(sheets)]).to.deep.equal(['Sheet2', 'Sheet10', 'A summary']);
    });

    it('lists proposals compactly and confirms them over MCP', async () => {
      const id = await uploaded('months-text.xlsx', 'Over MCP.xlsx', fx.companies.beta.id);
      client = await mcpClient(server.url, fx.admin.pat);
      const list = await client.callTool({ name: 'list_document_proposals', arguments: { document_id: id } });
      expect(list.isError, JSON.stringify(list.content)).to.not.equal(true);
      const rows = (list.structuredContent as { results: Row[] }).results;
      expect(rows.length).to.be.greaterThan(0);
      expect(rows[0]!.cells[0]).to.have.length(4);
      const unmapped = rows.filter((r) => r.category === null);
      expect(unmapped.every((r) => r.id !== null && r.cells.every((c) => c[0] === null))).to.equal(true);
      const res = await client.callTool({
        name: 'confirm_document_proposals',
        arguments: { document_id: id, on_conflict: 'skip' },
      });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      expect(res.structuredContent).to.deep.include({ parse_state: 'completed', open: 0 });
    });
  });
}
