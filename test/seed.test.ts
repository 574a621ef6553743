import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { addDemoCollection, demoFounderLink } from '../cli/demo-collection.ts';
import { verifySecret } from '../core/secrets.ts';
import { removeDemoData } from '../db/demo.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { createRepos } from '../db/repos/index.ts';
import { DEMO, isDatabaseEmpty, seedDemo } from '../db/seeds/demo.ts';
import { SEED_TABLES } from '../db/seeds/rows.ts';
import { parseCents } from '../db/seeds/values.ts';
import { verifyFounderLink } from '../services/founder-links.ts';
import { TestClock } from './helpers/server.ts';

interface TestDatabase {
  db: Knex;
  close(): Promise<void>;
}

async function freshSqlite(): Promise<TestDatabase> {
  const file = join(mkdtempSync(join(tmpdir(), 'pds-seed-')), 'seed.db');
  const db = openDb(`sqlite:${file}`);
  await migrateLatest(db);
  return { db, close: () => db.destroy() };
}

const postgresUrl = process.env.TEST_DATABASE_URL;

/** A migrated schema of its own in the PostgreSQL database of TEST_DATABASE_URL. */
async function freshPostgres(): Promise<TestDatabase> {
  const schema = `seed_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema ${schema}`);
  const url = `${postgresUrl}${postgresUrl!.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
  const db = openDb(url);
  await migrateLatest(db);
  return {
    db,
    async close() {
      await db.destroy();
      await admin.raw(`drop schema ${schema} cascade`);
      await admin.destroy();
    },
  };
}

/** Primary-key order of each seeded table, for comparable dumps. */
const ORDER: Record<string, string[]> = {
  user_companies: ['user_id', 'company_id'],
  company_funds: ['company_id', 'fund_id'],
  information_request_companies: ['request_id', 'company_id'],
  financing_pari_passu: ['financing_id', 'other_financing_id'],
  document_texts: ['document_id'],
};

/** The scrypt hashes have random salts: the only columns allowed to differ between two seeds. */
const SALTED: Record<string, string[]> = {
  users: ['password_hash'],
  oauth_applications: ['client_secret_hash'],
};

async function dump(db: Knex): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of SEED_TABLES) {
    const rows = (await db(table)
      .select('*')
      .orderBy(ORDER[table] ?? ['id'])) as Record<string, unknown>[];
    for (const row of rows) for (const column of SALTED[table] ?? []) delete row[column];
    out[table] = rows;
  }
  return out;
}

const ARR_PARTS = [
  'arr',
  'new_logo_arr',
  'expansion_arr',
  'contraction_arr',
  'churned_arr',
  'reactivation_arr',
  'net_new_arr',
];

interface MetricRow {
  company_id: string;
  name: string;
  date: string;
  value: string;
  currency: string | null;
  cadence: string;
}

/** Actual (not budget, not deleted) data points of some standard categories. */
async function actuals(db: Knex, names: string[], cadence?: string): Promise<MetricRow[]> {
  const q = db('metric_data as m')
    .join('metric_categories as c', 'c.id', 'm.category_id')
    .whereIn('c.name', names)
    .whereNull('c.firm_id')
    .whereNull('m.budget_id')
    .whereNull('m.deleted_at')
    .select('m.company_id', 'c.name', 'm.date', 'm.value', 'm.currency', 'm.cadence')
    .orderBy(['m.company_id', 'm.date']);
  if (cadence) q.where('m.cadence', cadence);
  return q;
}

const targets = [
  { name: 'sqlite', open: freshSqlite },
  ...(postgresUrl ? [{ name: 'postgres', open: freshPostgres }] : []),
];

for (const target of targets) describeSeed(target);

function describeSeed(target: (typeof targets)[number]): void {
  describe(`demo seed (${target.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDatabase;
    let summary: Record<string, number>;
    let seedMs = 0;
    let emptyBefore: boolean;

    before(async () => {
      t = await target.open();
      emptyBefore = await isDatabaseEmpty(t.db);
      const started = performance.now();
      summary = await seedDemo(t.db);
      seedMs = performance.now() - started;
    });
    after(async () => {
      await t?.close();
    });

    it('is reported empty before seeding and not after', async () => {
      expect(emptyBefore).to.equal(true);
      expect(await isDatabaseEmpty(t.db)).to.equal(false);
    });

    it('seeds in well under 15 seconds', () => {
      expect(seedMs).to.be.below(15_000);
    });

    it('fills every table it reports, and the summary matches the database', async () => {
      for (const table of SEED_TABLES) {
        const row = (await t.db(table).count({ n: '*' }).first()) as { n: number | string };
        const n = Number(row.n);
        expect(n, table).to.be.greaterThan(0);
        if (table !== 'metric_categories') expect(summary[table], table).to.equal(n);
      }
      expect(summary.metric_data).to.be.within(25_000, 40_000);
    });

    it('creates both firms, at least 25 demo companies and the demo logins', async () => {
      const firms = await t.db('firms').orderBy('slug').select('slug', 'preferred_currency', 'id');
      expect(firms.map((f) => [f.slug, f.preferred_currency])).to.deep.equal([
        ['demo', 'USD'],
        ['northwind', 'EUR'],
      ]);
      const demo = firms.find((f) => f.slug === DEMO.firmSlug)!;
      const companies = await t.db('companies').where({ firm_id: demo.id });
      expect(companies.length).to.be.at.least(25);
      expect(new Set(companies.map((c) => c.status))).to.include.members(['active', 'exited', 'written-off']);
      expect(new Set(companies.map((c) => c.reporting_currency)).size).to.be.at.least(4);
      for (const c of companies) {
        for (const column of [
          'description',
          'sector',
          'firm_sector',
          'city',
          'unique_ref',
          'website',
          'logo_url',
        ]) {
          expect(c[column], `${c.slug}.${column}`).to.be.a('string').and.not.equal('');
        }
        expect(c.fiscal_year_end).to.match(/^\d\d-\d\d$/);
        expect(c.investment_lead_id).to.be.a('string');
      }
      const funds = await t.db('funds').where({ firm_id: demo.id });
      expect(funds).to.have.length(3);

      const user = await t.db('users').where({ email: DEMO.email }).first();
      expect(user.role).to.equal('admin');
      expect(await verifySecret(DEMO.password, user.password_hash)).to.equal(true);
      const analyst = await t.db('users').where({ email: 'analyst@example.com' }).first();
      expect(Boolean(analyst.all_companies)).to.equal(false);
      expect(Boolean(analyst.can_view_documents)).to.equal(false);
      expect(await t.db('user_companies').where({ user_id: analyst.id })).to.have.length(3);
      const app = await t.db('oauth_applications').where({ client_id: DEMO.clientId }).first();
      expect(app.user_id).to.equal(user.id);
      expect(await verifySecret(DEMO.clientSecret, app.client_secret_hash)).to.equal(true);
      const northwind = await t.db('users').where({ email: 'admin@northwind.example' }).first();
      expect(await verifySecret('northwind-password', northwind.password_hash)).to.equal(true);
    });

    it('refuses to seed a second time and leaves the data as it was', async () => {
      const before = Number(((await t.db('metric_data').count({ n: '*' }).first()) as { n: number }).n);
      let error: unknown;
      try {
        await seedDemo(t.db);
      } catch (e) {
        error = e;
      }
      expect(String(error)).to.match(/already/);
      const afterCount = Number(((await t.db('metric_data').count({ n: '*' }).first()) as { n: number }).n);
      expect(afterCount).to.equal(before);
    });

    it('keeps the ARR identity for every company and month', async () => {
      const rows = await actuals(t.db, ARR_PARTS);
      const byCompany = new Map<string, Map<string, Record<string, number>>>();
      for (const r of rows) {
        if (r.cadence !== 'month' && r.cadence !== 'point_in_time') continue;
        const dates = byCompany.get(r.company_id) ?? new Map<string, Record<string, number>>();
        byCompany.set(r.company_id, dates);
        const at = dates.get(r.date) ?? {};
        dates.set(r.date, at);
        expect(at[r.name], `${r.company_id} ${r.name} ${r.date} twice`).to.equal(undefined);
        at[r.name] = parseCents(r.value);
      }
      expect(byCompany.size).to.be.at.least(8);
      let checked = 0;
      for (const [company, dates] of byCompany) {
        let previousArr: number | undefined;
        for (const [date, v] of [...dates].sort(([a], [b]) => (a < b ? -1 : 1))) {
          for (const name of ARR_PARTS) expect(v[name], `${company} ${date} ${name}`).to.be.a('number');
          const sum =
            v.new_logo_arr! + v.expansion_arr! + v.reactivation_arr! - v.contraction_arr! - v.churned_arr!;
          expect(sum, `${company} ${date} net_new_arr`).to.equal(v.net_new_arr);
          if (previousArr !== undefined) {
            expect(v.arr, `${company} ${date} arr`).to.equal(previousArr + v.net_new_arr!);
            checked++;
          }
          previousArr = v.arr;
        }
      }
      expect(checked).to.be.greaterThan(300);
    });

    it('moves cash by the net burn, jumping only in the months of financings', async () => {
      const rows = await actuals(t.db, ['cash_in_bank', 'net_burn']);
      const financings = await t.db('financings').select('company_id', 'closing_date');
      const financed = new Set(financings.map((f) => `${f.company_id} ${f.closing_date.slice(0, 7)}`));
      const series = new Map<string, Map<string, { cash?: number; burn?: number }>>();
      for (const r of rows) {
        if (r.cadence === 'quarter' || r.cadence === 'year') continue;
        const dates = series.get(r.company_id) ?? new Map<string, { cash?: number; burn?: number }>();
        series.set(r.company_id, dates);
        const at = dates.get(r.date) ?? {};
        dates.set(r.date, at);
        if (r.name === 'cash_in_bank') at.cash = parseCents(r.value);
        else at.burn = parseCents(r.value);
      }
      let jumps = 0;
      for (const [company, dates] of series) {
        let previous: number | undefined;
        for (const [date, v] of [...dates].sort(([a], [b]) => (a < b ? -1 : 1))) {
          expect(v.cash, `${company} ${date} cash`).to.be.at.least(0);
          if (previous !== undefined) {
            const inflow = v.cash! - (previous - v.burn!);
            if (inflow !== 0) {
              expect(financed.has(`${company} ${date.slice(0, 7)}`), `${company} ${date} jump`).to.equal(
                true,
              );
              expect(inflow).to.be.greaterThan(0);
              jumps++;
            }
          }
          previous = v.cash;
        }
      }
      expect(jumps).to.be.greaterThan(20);
    });

    it('stores gross margin as gross profit over revenue, and money with at most 2 decimals', async () => {
      const rows = await actuals(t.db, ['revenue', 'gross_profit', 'gross_margin'], 'month');
      const at = new Map<string, Record<string, string>>();
      for (const r of rows) {
        const key = `${r.company_id} ${r.date}`;
        at.set(key, { ...at.get(key), [r.name]: r.value });
      }
      for (const [key, v] of at) {
        if (!v.gross_margin || !v.gross_profit) continue;
        const expected = parseCents(v.gross_profit!) / parseCents(v.revenue!);
        expect(Math.abs(Number(v.gross_margin) - expected), key).to.be.below(0.00006);
      }
      const money = await t.db('metric_data').whereNotNull('currency').select('value');
      for (const m of money) expect(m.value).to.match(/^-?\d+(\.\d{1,2})?$/);
      const kinds = await t
        .db('metric_data as m')
        .join('metric_categories as c', 'c.id', 'm.category_id')
        .select('c.category_type', 'm.currency')
        .distinct();
      for (const k of kinds) {
        if (k.category_type === 'currency') expect(k.currency).to.be.a('string');
        else expect(k.currency).to.equal(null);
      }
    });

    it('has FX rates into USD for every currency of a demo metric, over the whole range', async () => {
      const demo = await t.db('firms').where({ slug: 'demo' }).first();
      const used = (await t
        .db('metric_data')
        .where({ firm_id: demo.id })
        .whereNotNull('currency')
        .groupBy('currency')
        .select('currency')
        .min({ first: 'date' })
        .max({ last: 'date' })) as { currency: string; first: string; last: string }[];
      expect(used.length).to.be.at.least(4);
      for (const u of used) {
        if (u.currency === 'USD') continue;
        const rates = await t
          .db('fx_rates')
          .where({ firm_id: demo.id, from_currency: u.currency, to_currency: 'USD' })
          .orderBy('date');
        expect(rates.length, u.currency).to.be.greaterThan(60);
        expect(rates[0].date <= u.first, `${u.currency} before ${u.first}`).to.equal(true);
        expect(rates[rates.length - 1].date.slice(0, 7) >= u.last.slice(0, 7), u.currency).to.equal(true);
        for (const r of rates) expect(r.rate).to.match(/^\d+\.\d{6}$/);
      }
      const northwind = await t.db('firms').where({ slug: 'northwind' }).first();
      const intoEur = await t.db('fx_rates').where({ firm_id: northwind.id }).distinct('to_currency');
      expect(intoEur.map((r) => r.to_currency)).to.deep.equal(['EUR']);
    });

    it('has budgets whose plan figures differ from the actuals', async () => {
      const budgets = await t.db('budgets');
      expect(budgets.length).to.be.at.least(20);
      const rows = await t
        .db('metric_data as b')
        .join('metric_data as a', function () {
          this.on('a.company_id', 'b.company_id')
            .andOn('a.category_id', 'b.category_id')
            .andOn('a.date', 'b.date')
            .andOn('a.cadence', 'b.cadence');
        })
        .whereNotNull('b.budget_id')
        .whereNull('a.budget_id')
        .whereNull('a.deleted_at')
        .select('a.value as actual', 'b.value as plan');
      expect(rows.length).to.be.greaterThan(500);
      for (const r of rows) expect(r.plan).to.not.equal(r.actual);
    });

    it('has documents in every parse state and from every source, each with its file', async () => {
      const docs = await t
        .db('documents as d')
        .join('document_files as f', 'f.id', 'd.file_id')
        .select('d.*', 'f.size', 'f.content', 'f.content_type');
      expect(new Set(docs.map((d) => d.parse_state))).to.have.keys([
        'not-started',
        'in-progress',
        'completed',
        'needs-input',
        'not-parseable',
      ]);
      expect(new Set(docs.map((d) => d.source))).to.have.keys([
        'information-request',
        'implementation',
        'upload',
        'email',
        'stakeholder-update',
      ]);
      for (const d of docs) {
        expect(d.size).to.equal(d.content.length);
        expect(d.submitted_date).to.match(/^\d{4}-\d\d-\d\d$/);
        const parsed = d.parse_state === 'completed' || d.parse_state === 'needs-input';
        expect(d.parsed_at !== null, `${d.name} parsed_at`).to.equal(parsed);
        if (d.source === 'information-request') expect(d.information_request_id).to.be.a('string');
      }
      expect(new Set(docs.map((d) => d.content_type))).to.include.members([
        'text/csv',
        'text/markdown',
        'application/pdf',
      ]);
    });

    it('has every kind of security and transaction, and consistent cap tables', async () => {
      const securities = await t.db('securities');
      expect(new Set(securities.map((s) => s.type))).to.have.keys([
        'certificate',
        'convertible',
        'public_equity',
        'token_convertible',
        'token_investment',
        'token_warrant',
        'warrant',
      ]);
      for (const s of securities) {
        const details = JSON.parse(s.details);
        for (const value of Object.values(details)) {
          if (value && typeof value === 'object') {
            expect(value).to.have.keys(['value', 'currency', 'fx_rate', 'is_custom_rate']);
            expect((value as { value: string }).value).to.be.a('string');
          }
        }
      }
      const events = await t.db('transactions').distinct('event');
      expect(events.map((e) => e.event).sort()).to.deep.equal(['conversion', 'exercise', 'sale']);
      const financings = await t.db('financings');
      expect(
        financings.some((f) => f.participation_type === 'CAPPED_PARTICIPATING' && f.cap_multiple),
      ).to.equal(true);
      for (const f of financings) {
        if (f.cap_multiple) expect(f.participation_type).to.equal('CAPPED_PARTICIPATING');
      }
      const links = await t.db('financing_pari_passu as p').join('financings as f', 'f.id', 'p.financing_id');
      expect(links.length).to.be.greaterThan(0);
      for (const l of links) expect(l.seniority_position).to.equal('PARI_PASSU');
      const leads = await t.db('financing_co_investors').where({ is_lead: true }).count({ n: '*' }).first();
      expect(Number(leads!.n)).to.equal(financings.length);
      const demo = await t.db('firms').where({ slug: 'demo' }).first();
      const companies = await t.db('companies').where({ firm_id: demo.id }).select('id');
      const withCapTable = new Set(
        (await t.db('financings').distinct('company_id')).map((r) => r.company_id),
      );
      for (const c of companies) expect(withCapTable.has(c.id)).to.equal(true);
    });

    it('keeps every conversion and exercise in the fund of the security it converts', async () => {
      const moves = await t
        .db('transactions as t')
        .join('securities as i', 'i.id', 't.input_security_id')
        .join('securities as o', 'o.id', 't.output_security_id')
        .whereIn('t.event', ['conversion', 'exercise'])
        .select('t.event', 'i.type as from_type', 'i.fund_id as from_fund', 'o.fund_id as to_fund');
      expect(moves.some((m) => m.from_type === 'token_convertible')).to.equal(true);
      for (const m of moves) expect(m.to_fund, `${m.event} of a ${m.from_type}`).to.equal(m.from_fund);
    });

    it('gives fund returns realistic marks: written-off companies at 0, some active ones marked down, exits sold', async () => {
      const overrides = await t
        .db('fair_value_overrides as o')
        .join('companies as c', 'c.id', 'o.company_id')
        .select('c.status', 'o.fair_value_value as value', 'o.company_id', 'o.fund_id');
      // Pinned on purpose: each fund of a written-off company, and each fund of every third active company.
      expect(overrides.length).to.equal(22);
      const written = overrides.filter((o) => o.status === 'written-off');
      expect(written.length).to.be.greaterThan(0);
      for (const o of written) expect(o.value).to.equal('0.00');
      const writtenOff = await t.db('companies').where({ status: 'written-off' }).select('id');
      expect(new Set(written.map((o) => o.company_id))).to.have.keys(writtenOff.map((c) => c.id));
      const marked = overrides.filter((o) => o.status === 'active');
      expect(marked.length).to.be.greaterThan(0);
      for (const o of marked) expect(Number(o.value)).to.be.greaterThan(0);
      const exitSales = await t
        .db('transactions as x')
        .join('companies as c', 'c.id', 'x.company_id')
        .where({ 'x.event': 'sale', 'c.status': 'exited' })
        .whereNotNull('x.proceeds_value');
      expect(exitSales.length).to.be.greaterThan(0);
    });

    it('has custom metrics with data, archived and deleted metrics, comments and history', async () => {
      const demo = await t.db('firms').where({ slug: 'demo' }).first();
      const custom = await t.db('metric_categories').where({ firm_id: demo.id });
      expect(custom.length).to.be.at.least(5);
      expect(new Set(custom.map((c) => c.category_type))).to.include.members([
        'number',
        'currency',
        'text',
        'select',
      ]);
      for (const c of custom) {
        const companies = await t
          .db('metric_data')
          .where({ category_id: c.id })
          .countDistinct({ n: 'company_id' });
        expect(Number(companies[0]!.n), c.name).to.be.at.least(3);
        if (c.category_type === 'select') {
          const choices = JSON.parse(c.choices) as string[];
          const values = await t.db('metric_data').where({ category_id: c.id }).distinct('value');
          for (const v of values) expect(choices).to.include(v.value);
        }
      }
      const archived = await t.db('metric_data').where({ archived: true }).count({ n: '*' }).first();
      const deleted = await t.db('metric_data').whereNotNull('deleted_at').count({ n: '*' }).first();
      expect(Number(archived!.n)).to.be.greaterThan(0);
      expect(Number(deleted!.n)).to.be.greaterThan(0);
      const comments = await t.db('metric_comments').orderBy(['datum_id', 'seq']);
      const seqs = new Map<string, number[]>();
      for (const c of comments) seqs.set(c.datum_id, [...(seqs.get(c.datum_id) ?? []), c.seq]);
      for (const list of seqs.values()) expect(list).to.deep.equal(list.map((_, i) => i + 1));
      expect(await t.db('metric_history')).to.have.length.greaterThan(0);
    });

    it('has notes by several authors, custom columns and information reports in every status', async () => {
      const notes = await t.db('notes');
      expect(new Set(notes.map((n) => n.author_id)).size).to.be.at.least(3);
      const perCompany = new Map<string, number>();
      for (const n of notes) perCompany.set(n.company_id, (perCompany.get(n.company_id) ?? 0) + 1);
      const demo = await t.db('firms').where({ slug: 'demo' }).first();
      const companies = await t.db('companies').where({ firm_id: demo.id });
      for (const c of companies) expect(perCompany.get(c.id), c.slug).to.be.within(3, 10);

      const columns = await t.db('custom_columns').where({ firm_id: demo.id });
      expect(columns.map((c) => c.type).sort()).to.deep.equal(['multi_select', 'select', 'text']);
      const values = await t.db('custom_column_values');
      expect(values.length).to.be.greaterThan(companies.length * 2);

      const requests = await t.db('information_requests').where({ firm_id: demo.id });
      expect(requests.length).to.be.within(6, 8);
      const reports = await t.db('information_reports').where({ firm_id: demo.id });
      expect(new Set(reports.map((r) => r.status))).to.include.members([
        'completed',
        'in-progress',
        'not-started',
        'partially-complete',
      ]);
      for (const r of reports) {
        const submitted = r.status === 'completed' || r.status === 'partially-complete';
        expect(r.submitted_at !== null).to.equal(submitted);
      }
    });
  });
}

describe('demo seed determinism and atomicity @db', function () {
  this.timeout(180_000);
  for (const target of targets) {
    it(`produces identical rows in two fresh ${target.name} databases (except the salted hashes)`, async () => {
      const a = await target.open();
      const b = await target.open();
      try {
        await seedDemo(a.db);
        await seedDemo(b.db);
        const [dumpA, dumpB] = [await dump(a.db), await dump(b.db)];
        for (const table of SEED_TABLES) {
          expect(dumpA[table]!.length, table).to.be.greaterThan(0);
          expect(dumpA[table], table).to.deep.equal(dumpB[table]);
        }
        const [hashA, hashB] = await Promise.all([
          a.db('users').where({ email: DEMO.email }).first('password_hash'),
          b.db('users').where({ email: DEMO.email }).first('password_hash'),
        ]);
        expect(hashA.password_hash).to.not.equal(hashB.password_hash);
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('inserts nothing when any part of the data set fails', async () => {
    const t = await freshSqlite();
    try {
      // Another firm already uses the demo OAuth client id: the last insert of the seed fails.
      const at = '2024-01-01T00:00:00.000Z';
      await t
        .db('firms')
        .insert({ id: 'other', slug: 'other', name: 'Other', preferred_currency: 'USD', created_at: at });
      await t.db('users').insert({
        id: 'other-user',
        firm_id: 'other',
        email: 'someone@other.example',
        password_hash: 'x',
        role: 'admin',
        created_at: at,
      });
      await t.db('oauth_applications').insert({
        id: 'other-app',
        firm_id: 'other',
        user_id: 'other-user',
        name: 'Other',
        client_id: DEMO.clientId,
        client_secret_hash: 'x',
        created_at: at,
      });
      let error: unknown;
      try {
        await seedDemo(t.db);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(Error);
      expect(await t.db('firms').pluck('slug')).to.deep.equal(['other']);
      for (const table of ['companies', 'metric_data', 'documents', 'securities']) {
        const row = (await t.db(table).count({ n: '*' }).first()) as { n: number | string };
        expect(Number(row.n), table).to.equal(0);
      }
    } finally {
      await t.close();
    }
  });
});

for (const target of targets) {
  describe(`the demo's quarterly collection (${target.name}) @db`, function () {
    this.timeout(120_000);

    it('gives every active company a founder contact and sends one request for the current quarter, whose held mail carries a working founder link', async () => {
      const t = await target.open();
      try {
        await seedDemo(t.db);
        const repos = createRepos(t.db);
        const clock = new TestClock(new Date('2026-11-29T09:00:00.000Z'));
        const base = 'http://127.0.0.1:8123';
        const { requestId, companies } = await addDemoCollection({ repos, clock, publicUrl: base });
        const firm = (await repos.firms.getBySlug(DEMO.firmSlug))!;
        const active = await t
          .db('companies')
          .where({ firm_id: firm.id, status: 'active' })
          .count({ n: '*' });
        expect(companies).to.equal(Number(active[0]!.n)).and.be.greaterThan(0);
        const contacts = await t.db('company_contacts').where({ firm_id: firm.id }).count({ n: '*' });
        expect(Number(contacts[0]!.n)).to.equal(companies);
        const request = await t.db('information_requests').where({ id: requestId }).first();
        expect(request).to.include({
          name: 'Q4 2026 update',
          period: '2026-Q4',
          period_start_date: '2026-10-01',
          period_end_date: '2026-12-31',
          due_date: '2027-01-30',
          status: 'sent',
        });
        const reports = await t.db('information_reports').where({ information_request_id: requestId });
        expect(reports).to.have.length(companies);
        const mail = await repos.mail.list({ firmId: firm.id, limit: 1000 });
        expect(mail.filter((m) => m.kind === 'request' && m.request_id === requestId)).to.have.length(
          companies,
        );
        expect(mail.every((m) => m.link?.startsWith(`${base}/respond/frl_`))).to.equal(true);

        // The banner's link: the token of a held request mail, at whatever address the server is on.
        const link = await demoFounderLink({ repos, clock }, 'http://127.0.0.1:9999');
        expect(link).to.match(/^http:\/\/127\.0\.0\.1:9999\/respond\/frl_[\w-]{43}$/);
        const session = await verifyFounderLink({ repos, clock }, link!.split('/respond/')[1]!);
        expect(reports.map((r: { id: string }) => r.id)).to.include(session.link.report_id);

        // `portfolio demo remove` takes all of it away with the firm.
        await removeDemoData(t.db);
        for (const table of [
          'company_contacts',
          'information_requests',
          'outbound_mail',
          'information_report_links',
        ]) {
          const left = await t.db(table).where({ firm_id: firm.id }).count({ n: '*' });
          expect(Number(left[0]!.n), table).to.equal(0);
        }
      } finally {
        await t.close();
      }
    });
  });
}
