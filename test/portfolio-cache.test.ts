import { expect } from 'chai';
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

// Imported as the server imports it (server/http.ts is loaded with import()), so both see one cache.
const { cachedCompanies, clearPortfolioCache } = await import('../analytics/portfolio-cache.ts');

const T = '2025-01-05T00:00:00.000Z';
const stocks = new Set(STANDARD_CATEGORIES.filter((c) => c.pointInTime).map((c) => c.name));
const CATEGORIES = ['revenue', 'net_burn', 'cash_in_bank', 'arr', 'headcount', 'gross_profit'];

function monthEnd(y: number, m: number): string {
  const d = new Date(Date.UTC(y, m, 0));
  return d.toISOString().slice(0, 10);
}

/** A repeatable pseudo-random sequence. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const CALLS = [
  '/v1/portfolio/screen/?status=active&sort_by=runway_months&page_size=5',
  `/v1/portfolio/screen/?${['arr', 'arr_growth_yoy_firm_currency', 'revenue_ttm', 'revenue_growth_yoy', 'net_burn_avg_3m', 'runway_months', 'burn_multiple', 'gross_margin_ttm', 'headcount_change_12m'].map((c) => `columns=${c}`).join('&')}`,
  '/v1/portfolio/screen/?group_by=sector&columns=arr&columns=revenue_ttm&columns=runway_months',
  '/v1/portfolio/screen/?stale=true&sort_by=-arr',
  '/v1/portfolio/overview/',
];

for (const dialect of dialects) {
  describe(`portfolio figures reused between calls (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    const clock = new TestClock(new Date('2026-01-20T12:00:00.000Z'));
    const ids: string[] = [];

    /** Every call's answer, in order. */
    async function answers(token: string): Promise<unknown[]> {
      const out: unknown[] = [];
      for (const path of CALLS) {
        const res = await api(server.url, path, { token });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
        out.push(res.body);
      }
      return out;
    }

    /** Every call's answer as the caller gets it: first as the cache gives it, then recomputed from the rows. */
    async function cachedAndFromRows(token: string) {
      const cached = await answers(token);
      clearPortfolioCache(t.db);
      const fromRows = await answers(token);
      return { cached, fromRows };
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      await t.db('fx_rates').insert(
        ['2023-06-01', '2024-06-01', '2025-06-01', '2025-12-20'].map((date, i) => ({
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date,
          rate: (1.05 + i * 0.05).toFixed(2),
        })),
      );
      const next = random(7);
      ids.push(fx.companies.acme.id);
      for (let i = 0; i < 24; i++) {
        const id = newId();
        await fx.repos.companies.create(
          {
            id,
            firm_id: fx.firmA.id,
            name: `Company ${String(i).padStart(2, '0')}`,
            slug: `company-${i}`,
            description: '',
            sector: ['SaaS', 'Fintech', 'Climate'][i % 3]!,
            firm_sector: 'Software',
            city: 'Paris',
            status: i % 5 === 4 ? 'exited' : 'active',
            unique_ref: '',
            website: '',
            logo_url: 'https://logos.example/x.png',
            fiscal_year_end: '12-31',
            reporting_currency: i % 4 === 0 ? 'EUR' : 'USD',
            investment_lead_id: null,
            created_at: T,
            updated_at: T,
          },
          [fx.fundA],
        );
        ids.push(id);
      }
      for (const [k, id] of ids.entries()) {
        // Some companies stop reporting early, so some are stale.
        const last = k % 7 === 6 ? 18 : 30;
        // Some report in two currencies, converted into one before their figures are computed.
        const currencyOf = (m: number) => (k % 4 === 1 || (k % 4 === 2 && m % 5 === 0) ? 'EUR' : 'USD');
        for (let m = 0; m < last; m++) {
          for (const category of CATEGORIES) {
            if (next() < 0.1) continue;
            await insertDatum(t.db, {
              firmId: fx.firmA.id,
              companyId: id,
              category,
              value: (1000 + Math.floor(next() * 100000)).toFixed(2),
              currency: category === 'headcount' ? null : currencyOf(m),
              date: monthEnd(2023, 7 + m),
              cadence: stocks.has(category) ? 'point_in_time' : 'month',
            });
          }
        }
      }
      server = await startTestServer(t.db, { clock });
    });

    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('answers as the computation from the rows does, and reuses each company between calls', async () => {
      const { cached, fromRows } = await cachedAndFromRows(fx.admin.rest);
      expect(cached).to.deep.equal(fromRows);
      const before = new Map(cachedCompanies(t.db, fx.firmA.id));
      expect(before.size).to.be.greaterThan(ids.length - 1);
      expect(await answers(fx.admin.rest)).to.deep.equal(fromRows);
      // Nothing changed, so the later calls used the entries the first ones made.
      const after = cachedCompanies(t.db, fx.firmA.id);
      for (const [id, entry] of before) expect(after.get(id), id).to.equal(entry);
    });

    it('after a write to one company only that company is recomputed, and the answers match the rows', async () => {
      await cachedAndFromRows(fx.admin.rest);
      await api(server.url, CALLS[1]!, { token: fx.admin.rest });
      const before = new Map(cachedCompanies(t.db, fx.firmA.id));
      const target = ids[3]!;
      const write = await api(server.url, '/v1/metrics/', {
        token: fx.editor.rest,
        method: 'POST',
        body: [
          {
            company_id: target,
            category: 'cash_in_bank',
            metric_cadence: 'point_in_time',
            date: '2025-12-31',
            value: '12345.67',
            currency: 'USD',
          },
        ],
      });
      expect(write.status, JSON.stringify(write.body)).to.equal(201);
      const res = await api(server.url, CALLS[1]!, { token: fx.admin.rest });
      const after = cachedCompanies(t.db, fx.firmA.id);
      for (const [id, entry] of before) {
        if (id === target) expect(after.get(id)).to.not.equal(entry);
        else expect(after.get(id), id).to.equal(entry);
      }
      const row = (res.body as { results: { company_id: string; arr: string | null }[] }).results.find(
        (r) => r.company_id === target,
      );
      expect(row).to.exist;
      const { cached, fromRows } = await cachedAndFromRows(fx.admin.rest);
      expect(cached).to.deep.equal(fromRows);
    });

    it('a changed FX rate changes the converted figures on the next call, as the rows give them', async () => {
      const { cached: before } = await cachedAndFromRows(fx.admin.rest);
      await api(server.url, CALLS[1]!, { token: fx.admin.rest });
      await t
        .db('fx_rates')
        .where({ firm_id: fx.firmA.id })
        .whereIn('date', ['2024-06-01', '2025-06-01'])
        .update({ rate: '1.31' });
      const { cached, fromRows } = await cachedAndFromRows(fx.admin.rest);
      expect(cached).to.deep.equal(fromRows);
      expect(cached).to.not.deep.equal(before);
    });

    it('a caller limited to some companies gets what the rows give them, and the full view is unchanged', async () => {
      await cachedAndFromRows(fx.admin.rest);
      const limited = await cachedAndFromRows(fx.restricted.rest);
      expect(limited.cached).to.deep.equal(limited.fromRows);
      const screen = limited.cached[1] as { results: { company_id: string }[] };
      expect(screen.results.map((r) => r.company_id)).to.deep.equal([fx.companies.acme.id]);
      const full = await cachedAndFromRows(fx.admin.rest);
      expect(full.cached).to.deep.equal(full.fromRows);
    });

    it('a new month recomputes the figures through it', async () => {
      const { cached: before } = await cachedAndFromRows(fx.admin.rest);
      clock.set(new Date('2026-02-01T00:00:01.000Z'));
      await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: ids[5]!,
        category: 'cash_in_bank',
        value: '999.00',
        currency: 'USD',
        date: '2026-01-31',
        cadence: 'point_in_time',
      });
      const { cached, fromRows } = await cachedAndFromRows(fx.admin.rest);
      expect(cached).to.deep.equal(fromRows);
      expect(cached).to.not.deep.equal(before);
      clock.set(new Date('2026-01-20T12:00:00.000Z'));
    });
  });
}
