import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { addDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { parseWaiting } from './helpers/parse.ts';
import { api, startTestServer } from './helpers/server.ts';
import { corpus } from './helpers/workbook-corpus.ts';
import { writeXlsx } from './helpers/workbooks.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

for (const dialect of dialects) {
  describe(`confirmation without review of founders’ spreadsheets (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    /** A corpus workbook stored as arriving from `source`, then parsed. */
    async function parsed(file: string, source: string, companyId: string, bytes?: Buffer): Promise<string> {
      const content = bytes ?? corpus().find((f) => f.file === file)!.content;
      const id = await addDocument(fx.repos, {
        company: { id: companyId },
        firmId: fx.firmA.id,
        name: file,
        body: content,
        contentType: XLSX_TYPE,
      });
      await t.db('documents').where({ id }).update({ source });
      await parseWaiting(t.db);
      return id;
    }
    const settings = (token: string, body?: unknown) =>
      api(server.url, '/v1/extraction-settings/', { token, method: body ? 'PATCH' : 'GET', body });
    const statuses = async (id: string) =>
      (await t.db('extraction_proposals').where({ document_id: id }).select('status', 'category_id')) as {
        status: string;
        category_id: string | null;
      }[];

    it('is off by default: a founder’s spreadsheet waits for review', async () => {
      const res = await settings(fx.admin.pat);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ auto_confirm: false, updated_at: null });
      const id = await parsed('months-text.xlsx', 'information-request', fx.companies.acme.id);
      expect((await statuses(id)).every((p) => p.status === 'proposed')).to.equal(true);
    });

    it('lets an admin only switch it on, over PATCH', async () => {
      expect((await settings(fx.editor.pat, { auto_confirm: true })).status).to.equal(403);
      expect((await settings(fx.viewer.pat, { auto_confirm: true })).status).to.equal(403);
      expect((await settings(fx.admin.pat, { auto_confirm: 'yes' })).status).to.equal(400);
      const on = await settings(fx.admin.pat, { auto_confirm: true });
      expect(on.status, JSON.stringify(on.body)).to.equal(200);
      expect(on.body).to.deep.include({ auto_confirm: true });
      expect((await settings(fx.other.pat)).body).to.deep.include({ auto_confirm: false });
      const log = await t
        .db('change_log')
        .where({ entity: 'firm_extraction_settings', entity_id: fx.firmA.id });
      expect(log).to.have.length(1);
    });

    it('when on, confirms the high-confidence figures of a founder’s upload as the service, leaving unmapped rows for review', async () => {
      const id = await parsed('three-tabs.xlsx', 'information-request', fx.companies.beta.id);
      const rows = await statuses(id);
      expect(rows.filter((p) => p.category_id !== null).every((p) => p.status === 'confirmed')).to.equal(
        true,
      );
      expect(rows.filter((p) => p.category_id === null).every((p) => p.status === 'proposed')).to.equal(true);
      const doc = await t.db('documents').where({ id }).first('parse_state');
      expect(doc.parse_state).to.equal('needs-input');
      const data = await t
        .db('metric_data')
        .where({ company_id: fx.companies.beta.id })
        .select('detailed_source', 'budget_id');
      expect(data).to.have.length(18);
      expect(data.map((d) => d.detailed_source)).to.include('three-tabs.xlsx, P&L!B6');
      const events = await t.db('events').where({ company_id: fx.companies.beta.id, type: 'metric.created' });
      expect(events.length).to.be.greaterThan(0);
      expect(events.every((e) => e.actor_type === 'system')).to.equal(true);
    });

    it('completes a founder’s spreadsheet whose every row maps, and leaves a firm user’s own upload for review', async () => {
      const founders = await parsed('months-text.xlsx', 'information-request', fx.companies.gamma.id);
      expect((await t.db('documents').where({ id: founders }).first('parse_state')).parse_state).to.equal(
        'completed',
      );
      expect((await statuses(founders)).every((p) => p.status === 'confirmed')).to.equal(true);
      const own = await parsed('quarters.xlsx', 'upload', fx.companies.gamma.id);
      expect((await statuses(own)).every((p) => p.status === 'proposed')).to.equal(true);
    });

    it('leaves every figure for review when the metrics service refuses them: one point, two values on two sheets', async () => {
      const sheet = (name: string, value: number) => ({
        name,
        rows: [
          ['', 'Jan-26', 'Feb-26'],
          ['Revenue', value, 200],
        ],
      });
      const before = await t.db('metric_data').where({ company_id: fx.companies.acme.id });
      const id = await parsed(
        'clash.xlsx',
        'information-request',
        fx.companies.acme.id,
        writeXlsx([sheet('P&L', 100), sheet('KPIs', 120)]),
      );
      expect((await statuses(id)).map((p) => p.status)).to.deep.equal([
        'proposed',
        'proposed',
        'proposed',
        'proposed',
      ]);
      expect((await t.db('documents').where({ id }).first('parse_state')).parse_state).to.equal(
        'needs-input',
      );
      expect(await t.db('metric_data').where({ company_id: fx.companies.acme.id })).to.have.length(
        before.length,
      );
    });

    it('leaves what the reader inferred for review: a statement dated only by its title', async () => {
      const id = await parsed(
        'export.xlsx',
        'information-request',
        fx.companies.acme.id,
        writeXlsx([
          {
            name: 'Report',
            rows: [
              ['Profit and Loss for the month ended 31 January 2026'],
              ['', 'Total'],
              ['Total revenue', 90],
              ['Gross profit', 30],
              ['Net income', 5],
            ],
          },
        ]),
      );
      const rows = await statuses(id);
      expect(rows).to.have.length(3);
      expect(rows.every((p) => p.status === 'proposed' && p.category_id !== null)).to.equal(true);
      expect((await t.db('documents').where({ id }).first('parse_state')).parse_state).to.equal(
        'needs-input',
      );
    });
  });
}
