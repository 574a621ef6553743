import { expect } from 'chai';
import { standardCategoryId } from '../core/categories.ts';
import { type FounderSession, founderContext, verifyFounderLink } from '../services/founder-links.ts';
import { founderReportView } from '../services/founder-view.ts';
import type { LoopContext } from '../services/information-common.ts';
import { type ReportAnswers, type SaveContext, saveReport } from '../services/information-reports.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import {
  addContact,
  contextOf,
  linkFor,
  PUBLIC_URL,
  quarterRequest,
  sentRequest,
} from './helpers/information.ts';
import { TestClock } from './helpers/server.ts';

const PDF = {
  filename: 'deck.pdf',
  content_type: 'application/pdf',
  bytes: Buffer.from('%PDF-1.4 board deck'),
};

for (const dialect of dialects) {
  describe(`a founder's answers to a report (${dialect.name}) @db`, function () {
    this.timeout(30000);
    let t: TestDb;
    let fx: Fixture;
    let ctx: LoopContext & SaveContext;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    let request: string;
    const reports = new Map<string, string>();
    const founders = new Map<string, FounderSession>();
    const items = new Map<string, string>();

    const founderOf = (company: string): SaveContext => ({
      ...founderContext({ repos: fx.repos, clock }, founders.get(company)!),
      documentStorageQuotaBytes: 100 * 1024 * 1024,
      publicUrl: PUBLIC_URL,
    });
    const save = (company: string, answers: ReportAnswers, submit: boolean) =>
      saveReport(founderOf(company), founders.get(company)!, answers, { submit });
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => {
          throw new Error('expected a refusal');
        },
        (err: { status: number; errors: { field: string; message: string }[] }) => err,
      );
    const eventCount = async () => Number((await t.db('events').count({ n: '*' }).first())!.n);
    const revenueData = (company: string) =>
      t
        .db('metric_data')
        .where({ company_id: company, category_id: standardCategoryId('revenue') })
        .whereNull('deleted_at');
    /** The request's counters must equal the tallies of its reports after every transition. */
    async function countersAgree(id = request) {
      const counted = (await fx.repos.information.countedRequest(ctx.principal.scope, id, '2026-01-05'))!;
      const rows = await t.db('information_reports').where('information_request_id', id);
      const tally = (s: string) => rows.filter((r) => r.status === s).length;
      expect(counted).to.include({
        completed_count: tally('completed'),
        in_progress_count: tally('in-progress'),
        partially_complete_count: tally('partially-complete'),
        not_started_count: tally('not-started'),
        unanswered_count: rows.filter((r) => r.submitted_at === null).length,
        past_due_count: 0,
      });
      return counted;
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ctx = await contextOf(fx.repos, clock, fx.editor.user.email);
      const companies = [fx.companies.acme.id, fx.companies.beta.id];
      const contacts = new Map<string, string>();
      for (const [i, company] of companies.entries())
        contacts.set(company, (await addContact(ctx, company, `Founder ${i}`, `founder${i}@example.com`)).id);
      const input = quarterRequest(companies, {
        metrics: [
          { category: 'revenue' },
          { category: 'cash_in_bank', optional: true },
          { category: 'headcount', optional: true },
        ],
      });
      const sent = await sentRequest(ctx, input);
      request = sent.id;
      for (const company of companies) {
        const report = sent.reportOf.get(company)!;
        reports.set(company, report);
        const link = await linkFor(ctx, report, contacts.get(company)!);
        founders.set(company, await verifyFounderLink({ repos: fx.repos, clock }, link.token));
      }
      const acmeItems = await fx.repos.informationWrites.reportMetrics(reports.get(fx.companies.acme.id)!);
      for (const m of acmeItems) items.set(m.name, m.id);
      const docs = await fx.repos.informationWrites.reportDocuments(reports.get(fx.companies.acme.id)!);
      items.set('deck', docs[0]!.id);
      await countersAgree();
    });
    after(async () => {
      await t?.drop();
    });

    it('a draft keeps the values typed on the report, and writes no metric data', async () => {
      const acme = fx.companies.acme.id;
      const saved = await save(
        acme,
        { metrics: [{ item_id: items.get('revenue')!, value: '1200.50' }] },
        false,
      );
      expect(saved).to.include({ status: 'in-progress', submitted_at: null, changed: true });
      const row = await t.db('information_report_metrics').where('id', items.get('revenue')).first();
      expect(row).to.include({ value: '1200.50', currency: 'USD', status: 'in-progress' });
      expect(await revenueData(acme)).to.deep.equal([]);
      expect((await countersAgree()).in_progress_count).to.equal(1);
    });

    it('refuses a save with a bad value, naming metrics[<item_id>].value and .currency, and writes nothing', async () => {
      const acme = fx.companies.acme.id;
      const before = await eventCount();
      const err = await refused(
        save(
          acme,
          {
            metrics: [
              { item_id: items.get('revenue')!, value: '1,200' },
              { item_id: items.get('cash_in_bank')!, value: '5000', currency: 'XYZ' },
              { item_id: items.get('headcount')!, value: '12', currency: 'USD' },
              { item_id: 'nope', value: '1' },
            ],
          },
          false,
        ),
      );
      expect(err.status).to.equal(400);
      expect(err.errors.map((e) => e.field)).to.deep.equal([
        `metrics[${items.get('revenue')}].value`,
        `metrics[${items.get('cash_in_bank')}].currency`,
        `metrics[${items.get('headcount')}].currency`,
        'metrics[nope]',
      ]);
      expect(
        (await t.db('information_report_metrics').where('id', items.get('revenue')).first()).value,
      ).to.equal('1200.50');
      expect(await eventCount()).to.equal(before);
    });

    it('refuses a file of the wrong kind, naming documents[<item_id>].file', async () => {
      const err = await refused(
        save(
          fx.companies.acme.id,
          { documents: [{ item_id: items.get('deck')!, file: { ...PDF, bytes: Buffer.from('not a pdf') } }] },
          false,
        ),
      );
      expect(err.errors.map((e) => e.field)).to.deep.equal([`documents[${items.get('deck')}].file`]);
    });

    it('a submission writes each value through the metrics service at the period end, and the file as a document of the request', async () => {
      const acme = fx.companies.acme.id;
      const before = await eventCount();
      const saved = await save(
        acme,
        {
          metrics: [
            { item_id: items.get('revenue')!, value: '1500', currency: 'EUR' },
            { item_id: items.get('cash_in_bank')!, value: '90000.25' },
          ],
          documents: [{ item_id: items.get('deck')!, file: PDF }],
        },
        true,
      );
      expect(saved).to.include({ status: 'completed', changed: true });
      expect(saved.submitted_at).to.equal(clock.now().toISOString());
      const [revenue] = await revenueData(acme);
      expect(revenue).to.include({ cadence: 'quarter', date: '2025-12-31', value: '1500', currency: 'EUR' });
      expect(revenue.detailed_source).to.include(reports.get(acme));
      const cash = await t
        .db('metric_data')
        .where({ company_id: acme, category_id: standardCategoryId('cash_in_bank') })
        .first();
      expect(cash).to.include({ cadence: 'point_in_time', value: '90000.25', currency: 'USD' });
      const item = await t.db('information_report_metrics').where('id', items.get('revenue')).first();
      expect(item).to.include({ status: 'completed', datum_id: revenue.id });
      const document = await t
        .db('documents')
        .where({ company_id: acme, source: 'information-request' })
        .first();
      expect(document).to.include({
        information_request_id: request,
        parse_state: 'not-started',
        name: 'deck.pdf',
      });
      const events = await t.db('events').orderBy('seq').offset(before);
      expect(events.map((e) => e.type).sort()).to.deep.equal([
        'document.uploaded',
        'information_report.submitted',
        'metric.created',
        'metric.created',
      ]);
      for (const e of events)
        expect([e.actor_type, e.actor_id]).to.deep.equal(['contact', founders.get(acme)!.contact.id]);
      const submitted = events.find((e) => e.type === 'information_report.submitted');
      expect(JSON.parse(submitted.data)).to.include({
        status: 'completed',
        metrics_completed: 2,
        documents_missing: 0,
      });
      const changes = await t
        .db('change_log')
        .where({ entity: 'information_reports', entity_id: reports.get(acme), action: 'update' });
      expect(changes.map((c) => c.changed_by)).to.deep.equal([null, null]);
      expect((await countersAgree()).completed_count).to.equal(1);
    });

    it('submitting the same answers again writes nothing: no datum, document or event more', async () => {
      const acme = fx.companies.acme.id;
      const counts = async () => [
        (await revenueData(acme)).length,
        (await t.db('documents').where('company_id', acme)).length,
        await eventCount(),
      ];
      const before = await counts();
      const saved = await save(
        acme,
        {
          metrics: [
            { item_id: items.get('revenue')!, value: '1500', currency: 'EUR' },
            { item_id: items.get('cash_in_bank')!, value: '90000.25' },
          ],
          documents: [{ item_id: items.get('deck')!, file: PDF }],
        },
        true,
      );
      expect(saved.changed).to.equal(false);
      expect(await counts()).to.deep.equal(before);
    });

    it("a resubmission with a changed value overwrites the report's own datum", async () => {
      const acme = fx.companies.acme.id;
      const [before] = await revenueData(acme);
      await save(
        acme,
        { metrics: [{ item_id: items.get('revenue')!, value: '1600', currency: 'EUR' }] },
        true,
      );
      const after = await revenueData(acme);
      expect(after).to.have.length(1);
      expect(after[0]).to.include({ id: before.id, value: '1600' });
      const history = await t.db('metric_history').where('datum_id', before.id).orderBy('changed_at');
      expect(history.at(-1)).to.include({ old_value: '1500', new_value: '1600' });
      expect(history.at(-1).changed_by).to.equal(`contact:${founders.get(acme)!.contact.id}`);
      const [updated] = await t.db('events').where('type', 'metric.updated');
      expect(updated.actor_type).to.equal('contact');
    });

    it('refuses a draft over a submitted report (409): a change is submitted again', async () => {
      const err = await refused(save(fx.companies.acme.id, { metrics: [] }, false));
      expect(err.status).to.equal(409);
    });

    it('a submission missing a required item is partially-complete', async () => {
      const beta = fx.companies.beta.id;
      const betaItems = await fx.repos.informationWrites.reportMetrics(reports.get(beta)!);
      const cash = betaItems.find((m) => m.name === 'cash_in_bank')!;
      const saved = await save(beta, { metrics: [{ item_id: cash.id, value: '100' }] }, true);
      expect(saved.status).to.equal('partially-complete');
      const counted = await countersAgree();
      expect(counted).to.include({ partially_complete_count: 1, completed_count: 1, unanswered_count: 0 });
    });

    it("shows the founder's page its firm, period and due date, each field's kind, currency, saved value and the previous period", async () => {
      const beta = fx.companies.beta.id;
      await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: beta,
        category: 'revenue',
        cadence: 'quarter',
        date: '2025-09-30',
        value: '900',
      });
      const view = await founderReportView({ repos: fx.repos, clock }, founders.get(beta)!);
      expect(view.firm.name).to.equal('Alpha Partners');
      expect(view.company).to.include({ id: beta, reporting_currency: 'USD' });
      expect(view.request).to.include({ name: 'Q4 2025 update', period: '2025-Q4', due_date: '2026-01-31' });
      expect(view.report).to.include({ status: 'partially-complete', is_late: false });
      const fields = view.metrics.map((m) => [
        m.label,
        m.kind,
        m.time_period,
        m.optional,
        m.value,
        m.currency,
      ]);
      expect(fields).to.deep.equal([
        ['Revenue', 'currency', 'quarter', false, null, 'USD'],
        ['Cash in bank', 'currency', 'point_in_time', true, '100', 'USD'],
        ['Headcount', 'number', 'point_in_time', true, null, null],
      ]);
      expect(view.metrics[0]!.previous).to.deep.equal({ value: '900', currency: 'USD', date: '2025-09-30' });
      expect(view.documents.map((d) => [d.name, d.optional, d.status, d.document])).to.deep.equal([
        ['Board deck', false, 'missing', null],
      ]);
    });

    it('a failing metric rolls back the documents and the status of the same submission', async () => {
      // A period that ends after this month: the metrics service refuses actual data dated then.
      const gamma = fx.companies.gamma.id;
      const contact = (await addContact(ctx, gamma, 'Gail Gamma', 'gail@gamma.example')).id;
      const future = await sentRequest(
        ctx,
        quarterRequest([gamma], {
          name: 'Q2 2026',
          period_start_date: '2026-04-01',
          period_end_date: '2026-06-30',
          due_date: '2026-07-31',
        }),
      );
      const report = future.reportOf.get(gamma)!;
      const session = await verifyFounderLink(
        { repos: fx.repos, clock },
        (await linkFor(ctx, report, contact)).token,
      );
      founders.set(gamma, session);
      const [revenue] = await fx.repos.informationWrites.reportMetrics(report);
      const [deck] = await fx.repos.informationWrites.reportDocuments(report);
      const before = [await eventCount(), (await t.db('documents').where('company_id', gamma)).length];
      const err = await refused(
        save(
          gamma,
          { metrics: [{ item_id: revenue!.id, value: '10' }], documents: [{ item_id: deck!.id, file: PDF }] },
          true,
        ),
      );
      expect(err.status).to.equal(400);
      expect(err.errors.map((e) => e.field)).to.deep.equal([`metrics[${revenue!.id}].date`]);
      expect([await eventCount(), (await t.db('documents').where('company_id', gamma)).length]).to.deep.equal(
        before,
      );
      expect((await t.db('information_reports').where('id', report).first()).status).to.equal('not-started');
      expect((await t.db('information_report_documents').where('id', deck!.id).first()).document_id).to.equal(
        null,
      );
      await countersAgree(future.id);
    });
  });
}
