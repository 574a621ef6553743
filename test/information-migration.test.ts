import { expect } from 'chai';
import { standardCategoryId } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import { migrateLatest } from '../db/knex.ts';
import { migrationSource } from '../db/migrations/index.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';

const T0 = '2025-12-01T00:00:00.000Z';

for (const dialect of dialects) {
  describe(`migration 024-information-loop on existing requests (${dialect.name}) @db`, function () {
    this.timeout(30000);
    let t: TestDb;
    let fx: Fixture;
    const request = newId();
    const closed = newId();
    const report = newId();

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      // Back to the schema before the loop, with requests and reports as they were written then.
      const applied = async () => (await t.db('knex_migrations').orderBy('id').pluck('name')) as string[];
      while ((await applied()).includes('024-information-loop')) await t.db.migrate.down({ migrationSource });
      const old = (id: string, status: string) => ({
        id,
        firm_id: fx.firmA.id,
        name: `Request ${status}`,
        due_date: '2026-01-31',
        period_start_date: '2025-10-01',
        period_end_date: '2025-12-31',
        period: 'quarter',
        status,
        created_at: T0,
      });
      await t.db('information_requests').insert([old(request, 'open'), old(closed, 'closed')]);
      await t.db('information_request_metrics').insert([
        { id: newId(), request_id: request, name: 'revenue', optional: false, position: 0 },
        { id: newId(), request_id: request, name: 'cash_in_bank', optional: true, position: 1 },
      ]);
      await t
        .db('information_request_documents')
        .insert([{ id: newId(), request_id: request, name: 'Board deck', optional: true, position: 0 }]);
      await t.db('information_reports').insert({
        id: report,
        firm_id: fx.firmA.id,
        company_id: fx.companies.acme.id,
        information_request_id: request,
        submitted_at: null,
        status: 'In_Progress',
        created_at: T0,
      });
      await t.db('information_report_metrics').insert([
        {
          id: newId(),
          report_id: report,
          name: 'revenue',
          date: '2025-12-31',
          status: 'completed',
          time_period: 'quarter',
          position: 0,
        },
        {
          id: newId(),
          report_id: report,
          name: 'cash_in_bank',
          date: '2025-12-31',
          status: 'missing',
          time_period: 'quarter',
          position: 1,
        },
      ]);
      await t.db('information_report_documents').insert([
        {
          id: newId(),
          report_id: report,
          requested_document: 'Board deck',
          status: 'missing',
          position: 0,
        },
      ]);
      await migrateLatest(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    it('makes an open request a sent one and keeps a closed one closed, with their instants', async () => {
      const rows = await t.db('information_requests').whereIn('id', [request, closed]).orderBy('name');
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(request)).to.include({ status: 'sent', sent_at: T0, updated_at: T0, closed_at: null });
      expect(byId.get(closed)).to.include({ status: 'closed', sent_at: T0, closed_at: T0 });
    });

    it('asks each company that has a report, and ties each metric to its category and time period', async () => {
      const companies = await t.db('information_request_companies').where('request_id', request);
      expect(companies.map((c) => c.company_id)).to.deep.equal([fx.companies.acme.id]);
      const metrics = await t
        .db('information_request_metrics')
        .where('request_id', request)
        .orderBy('position');
      expect(metrics.map((m) => [m.category_id, m.time_period])).to.deep.equal([
        [standardCategoryId('revenue'), 'quarter'],
        [standardCategoryId('cash_in_bank'), 'point_in_time'],
      ]);
    });

    it("links a report's items to what the request asks and writes its status the one way", async () => {
      expect((await t.db('information_reports').where('id', report).first()).status).to.equal('in-progress');
      const metrics = await t.db('information_report_metrics').where('report_id', report).orderBy('position');
      const asked = await t
        .db('information_request_metrics')
        .where('request_id', request)
        .orderBy('position');
      expect(metrics.map((m) => m.request_metric_id)).to.deep.equal(asked.map((m) => m.id));
      expect(metrics.map((m) => m.time_period)).to.deep.equal(['quarter', 'point_in_time']);
      expect(metrics.map((m) => Boolean(m.optional))).to.deep.equal([false, true]);
      const documents = await t.db('information_report_documents').where('report_id', report);
      expect(Boolean(documents[0].optional)).to.equal(true);
      expect(documents[0].request_document_id).to.be.a('string');
    });
  });
}
