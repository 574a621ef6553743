import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { STANDARD_CATEGORY_NAMES, standardCategoryId } from '../core/categories.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer } from './helpers/server.ts';

const T0 = '2025-01-01T00:00:00.000Z';

interface Row {
  id: string;
  /** A standard name, or a key of the custom metrics below. */
  category: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  created: string;
  updated: string;
  budget?: 'b1' | 'b2';
  archived?: boolean;
  deleted?: string;
}

/** Acme's metric data; m10 is deleted, m11 and m12 are budget metrics, m09 is archived. */
const acmeRows: Row[] = [
  {
    id: 'm01',
    category: 'revenue',
    cadence: 'month',
    date: '2025-01-31',
    value: '1000.00',
    currency: 'USD',
    created: '2025-02-01T00:00:00.000Z',
    updated: '2025-02-01T00:00:00.000Z',
  },
  {
    id: 'm02',
    category: 'revenue',
    cadence: 'month',
    date: '2025-02-28',
    value: '2000.50',
    currency: 'EUR',
    created: '2025-03-01T00:00:00.000Z',
    updated: '2025-03-05T00:00:00.000Z',
  },
  {
    id: 'm03',
    category: 'revenue',
    cadence: 'month',
    date: '2025-03-31',
    value: '3000',
    currency: 'EUR',
    created: '2025-04-01T00:00:00.000Z',
    updated: '2025-04-10T12:00:00.000Z',
  },
  {
    id: 'm04',
    category: 'cash_in_bank',
    cadence: 'point_in_time',
    date: '2025-01-31',
    value: '50000',
    currency: 'GBP',
    created: '2025-02-02T00:00:00.000Z',
    updated: '2025-02-02T00:00:00.000Z',
  },
  {
    id: 'm05',
    category: 'cash_in_bank',
    cadence: 'point_in_time',
    date: '2024-12-31',
    value: '40000',
    currency: 'EUR',
    created: '2025-01-05T00:00:00.000Z',
    updated: '2025-01-05T00:00:00.000Z',
  },
  {
    id: 'm06',
    category: 'headcount',
    cadence: 'point_in_time',
    date: '2025-01-31',
    value: '12',
    currency: null,
    created: '2025-02-03T00:00:00.000Z',
    updated: '2025-02-03T00:00:00.000Z',
  },
  {
    id: 'm07',
    category: 'customers',
    cadence: 'point_in_time',
    date: '2025-02-28',
    value: '150',
    currency: null,
    created: '2025-03-02T00:00:00.000Z',
    updated: '2025-03-02T00:00:00.000Z',
  },
  {
    id: 'm08',
    category: 'nps',
    cadence: 'point_in_time',
    date: '2025-03-31',
    value: 'great',
    currency: null,
    created: '2025-04-02T00:00:00.000Z',
    updated: '2025-04-02T00:00:00.000Z',
  },
  {
    id: 'm09',
    category: 'arr',
    cadence: 'point_in_time',
    date: '2025-02-28',
    value: '120000',
    currency: 'USD',
    created: '2025-03-03T00:00:00.000Z',
    updated: '2025-03-03T00:00:00.000Z',
    archived: true,
  },
  {
    id: 'm10',
    category: 'revenue',
    cadence: 'month',
    date: '2025-04-30',
    value: '999',
    currency: 'USD',
    created: '2025-05-01T00:00:00.000Z',
    updated: '2025-05-02T00:00:00.000Z',
    deleted: '2025-05-02T00:00:00.000Z',
  },
  {
    id: 'm11',
    category: 'revenue',
    cadence: 'month',
    date: '2025-01-31',
    value: '1100',
    currency: 'USD',
    created: '2025-01-10T00:00:00.000Z',
    updated: '2025-01-10T00:00:00.000Z',
    budget: 'b1',
  },
  {
    id: 'm12',
    category: 'revenue',
    cadence: 'month',
    date: '2025-02-28',
    value: '2100',
    currency: 'USD',
    created: '2025-01-11T00:00:00.000Z',
    updated: '2025-01-11T00:00:00.000Z',
    budget: 'b2',
  },
  {
    id: 'm13',
    category: 'revenue',
    cadence: 'quarter',
    date: '2025-03-31',
    value: '6000.50',
    currency: 'EUR',
    created: '2025-04-03T00:00:00.000Z',
    updated: '2025-04-03T00:00:00.000Z',
  },
];

/** The default listing of Acme: by date, then category name (case-insensitive), then id. */
const acmeDefault = ['m05', 'm04', 'm06', 'm01', 'm09', 'm02', 'm07', 'm08', 'm03', 'm13'];

const customMetrics = {
  customers: { name: 'Total Number of Customers', type: 'number', archived: false, choices: null },
  nps: { name: 'NPS Comment', type: 'text', archived: false, choices: null },
  tier: { name: 'Plan Tier', type: 'select', archived: true, choices: ['Free', 'Pro'] },
} as const;

interface World {
  customIds: Record<keyof typeof customMetrics, string>;
  budgets: { b1: string; b2: string };
}

async function addMetrics(db: Knex, fx: Fixture): Promise<World> {
  const customIds = { customers: 'cat-customers', nps: 'cat-nps', tier: 'cat-tier' };
  await db('metric_categories').insert([
    ...Object.entries(customMetrics).map(([key, c]) => ({
      id: customIds[key as keyof typeof customIds],
      firm_id: fx.firmA.id,
      name: c.name,
      is_standard: false,
      category_type: c.type,
      is_point_in_time: true,
      is_archived: c.archived,
      is_multiple: false,
      choices: c.choices ? JSON.stringify(c.choices) : null,
      created_at: T0,
    })),
    {
      id: 'cat-secret',
      firm_id: fx.firmB.id,
      name: 'Secret Metric',
      is_standard: false,
      category_type: 'number',
      is_point_in_time: true,
      is_archived: false,
      is_multiple: false,
      choices: null,
      created_at: T0,
    },
  ]);
  const budgets = { b1: 'budget-1', b2: 'budget-2' };
  await db('budgets').insert(
    Object.values(budgets).map((id, i) => ({
      id,
      firm_id: fx.firmA.id,
      company_id: fx.companies.acme.id,
      name: `Plan ${i + 1}`,
      date: '2025-01-01',
      created_at: T0,
    })),
  );
  const categoryId = (name: string) =>
    name in customIds ? customIds[name as keyof typeof customIds] : standardCategoryId(name);
  const datum = (firmId: string, companyId: string, r: Row) => ({
    id: r.id,
    firm_id: firmId,
    company_id: companyId,
    category_id: categoryId(r.category),
    cadence: r.cadence,
    date: r.date,
    value: r.value,
    currency: r.currency,
    budget_id: r.budget ? budgets[r.budget] : null,
    detailed_source: 'board deck',
    archived: r.archived ?? false,
    deleted_at: r.deleted ?? null,
    created_at: r.created,
    updated_at: r.updated,
  });
  const other = { cadence: 'month', date: '2025-01-31', created: T0, updated: T0, category: 'revenue' };
  await db('metric_data').insert([
    ...acmeRows.map((r) => datum(fx.firmA.id, fx.companies.acme.id, r)),
    datum(fx.firmA.id, fx.companies.beta.id, { ...other, id: 'b01', value: '500', currency: 'USD' }),
    datum(fx.firmB.id, fx.companies.zeta.id, { ...other, id: 'z01', value: '700', currency: 'EUR' }),
  ]);
  // 150 monthly EUR points for Gamma: more than one MCP page, and 100 FX probes in one page.
  const gamma = [];
  for (let i = 0; i < 150; i++) {
    const year = 2014 + Math.floor(i / 12);
    const month = String((i % 12) + 1).padStart(2, '0');
    gamma.push(
      datum(fx.firmA.id, fx.companies.gamma.id, {
        id: `g${String(i).padStart(3, '0')}`,
        category: 'net_burn',
        cadence: 'month',
        date: `${year}-${month}-28`,
        value: `${100 + i}.5`,
        currency: 'EUR',
        created: T0,
        updated: T0,
      }),
    );
  }
  await db('metric_data').insert(gamma);
  await db('fx_rates').insert([
    {
      id: 'fx1',
      firm_id: fx.firmA.id,
      from_currency: 'EUR',
      to_currency: 'USD',
      date: '2025-01-01',
      rate: '1.10',
    },
    {
      id: 'fx2',
      firm_id: fx.firmA.id,
      from_currency: 'EUR',
      to_currency: 'USD',
      date: '2025-03-01',
      rate: '1.20',
    },
    {
      id: 'fx3',
      firm_id: fx.firmA.id,
      from_currency: 'EUR',
      to_currency: 'USD',
      date: '2025-04-15',
      rate: '1.30',
    },
    // Another firm's rate is never used for firm A.
    {
      id: 'fx4',
      firm_id: fx.firmB.id,
      from_currency: 'GBP',
      to_currency: 'USD',
      date: '2025-01-01',
      rate: '1.25',
    },
  ]);
  await db('metric_comments').insert([
    {
      id: 'c2',
      datum_id: 'm01',
      content: 'second',
      updated_by: 'Ann',
      updated_at: '2025-02-03T00:00:00.000Z',
      seq: 2,
    },
    {
      id: 'c1',
      datum_id: 'm01',
      content: 'first',
      updated_by: 'Ann',
      updated_at: '2025-02-02T00:00:00.000Z',
      seq: 1,
    },
  ]);
  return { customIds, budgets };
}

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
type Json = any;

const ids = (body: Json): string[] => body.results.map((r: { id: string }) => r.id);
const byId = (body: Json): Record<string, Json> =>
  Object.fromEntries(body.results.map((r: { id: string }) => [r.id, r]));

for (const dialect of dialects) {
  describe(`metrics over REST and MCP (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let world: World;
    let server: RunningServer;
    let mcp: Client;
    let acme: string;

    const get = (query: string, token = fx.admin.rest) => api(server.url, `/v1/metrics/${query}`, { token });
    const list = (query: string, token?: string) => get(`?company_id=${acme}${query}`, token);
    const text = (res: Json): string => (res.content as { text: string }[])[0]!.text;

    async function expectBad(query: string, field: string, code = 'invalid_parameter') {
      const res = await get(query);
      expect(res.status, query).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(res.body.code, query).to.equal(code);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        query,
      ).to.include(field);
      return res;
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      world = await addMetrics(t.db, fx);
      acme = fx.companies.acme.id;
      server = await startTestServer(t.db);
      mcp = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    describe('GET /v1/metrics/', () => {
      it('lists a company metrics by date, then category name, then id, without budget or deleted data', async () => {
        const res = await list('');
        expect(res.status).to.equal(200);
        expect(res.body.count).to.equal(acmeDefault.length);
        expect(res.body.next).to.equal(null);
        expect(res.body.previous).to.equal(null);
        expect(ids(res.body)).to.deep.equal(acmeDefault);
        const bySlug = await get(`?company_slug=${fx.companies.acme.slug}`);
        expect(ids(bySlug.body)).to.deep.equal(acmeDefault);
      });

      it('serves every Datum field, matching the reference schema', async () => {
        const res = await list('&include_budgets=1&include_deleted=1');
        expect(res.body.count).to.equal(acmeRows.length);
        // The one deliberate deviation: converted_value is null (never guessed) where the
        // reference types it as a string, so those items are checked without it.
        const items = res.body.results.map((d: Json) => {
          if (d.converted_value !== null) return d;
          const { converted_value: _null, ...rest } = d;
          return rest;
        });
        assertReference('main', 'Datum', ...items);
        const m01 = byId(res.body).m01;
        expect(m01).to.deep.equal({
          id: 'm01',
          company_id: acme,
          category: 'revenue',
          category_id: standardCategoryId('revenue'),
          category_type: 'currency',
          custom_metric: null,
          cadence: 'month',
          date: '2025-01-31',
          value: '1000.00',
          currency: 'USD',
          converted_value: '1000.00',
          preferred_currency: 'USD',
          fx_rate: 1,
          budget_id: null,
          is_budget_metric: false,
          detailed_source: 'board deck',
          archived: false,
          created_at: '2025-02-01T00:00:00.000Z',
          updated_at: '2025-02-01T00:00:00.000Z',
          deleted_at: null,
        });
        const m07 = byId(res.body).m07;
        expect([m07.category, m07.custom_metric, m07.category_type, m07.category_id]).to.deep.equal([
          'custom',
          'Total Number of Customers',
          'number',
          world.customIds.customers,
        ]);
      });

      it('converts with the latest rate on or before the datum date, exactly', async () => {
        const res = byId((await list('')).body);
        expect([res.m02.fx_rate, res.m02.converted_value]).to.deep.equal([1.1, '2200.55']);
        expect([res.m03.fx_rate, res.m03.converted_value]).to.deep.equal([1.2, '3600']);
        expect([res.m13.fx_rate, res.m13.converted_value]).to.deep.equal([1.2, '7200.60']);
        expect([res.m09.fx_rate, res.m09.converted_value]).to.deep.equal([1, '120000']);
      });

      it('leaves converted_value and fx_rate null when no rate is known for money', async () => {
        const res = byId((await list('')).body);
        // m04: GBP, only another firm has a GBP rate; m05: EUR dated before the first EUR rate.
        for (const id of ['m04', 'm05']) {
          expect([res[id].fx_rate, res[id].converted_value], id).to.deep.equal([null, null]);
          expect(res[id].preferred_currency, id).to.equal('USD');
        }
      });

      it('converts a value that is not money to itself, as a string, with fx_rate null', async () => {
        const res = byId((await list('')).body);
        // m06: headcount; m07: a custom number; m08: a custom text metric.
        for (const [id, value] of [
          ['m06', '12'],
          ['m07', '150'],
          ['m08', 'great'],
        ] as const) {
          expect([res[id].fx_rate, res[id].converted_value], id).to.deep.equal([null, value]);
          assertReference('main', 'Datum', res[id]);
        }
      });

      it('requires company_id or company_slug, naming both', async () => {
        const res = await expectBad('', 'company_id', 'missing_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([
          'company_id',
          'company_slug',
        ]);
      });

      it('rejects company_id and company_slug naming different companies, accepts the same one', async () => {
        await expectBad(`?company_id=${acme}&company_slug=${fx.companies.beta.slug}`, 'company_slug');
        const same = await get(`?company_id=${acme}&company_slug=${fx.companies.acme.slug}`);
        expect(same.status).to.equal(200);
      });

      it('answers 404 for companies the caller cannot see, exactly as for unknown ones', async () => {
        const cases: [string, string][] = [
          [`?company_id=${fx.companies.zeta.id}`, fx.admin.rest],
          [`?company_slug=${fx.companies.zeta.slug}`, fx.admin.rest],
          [`?company_id=${fx.companies.beta.id}`, fx.restricted.rest],
          [`?company_id=${acme}`, fx.other.rest],
          ['?company_id=nope', fx.admin.rest],
        ];
        for (const [query, token] of cases) {
          const res = await get(query, token);
          expect(res.status, query).to.equal(404);
          expect(res.body.code, query).to.equal('not_found');
        }
        const allowed = await get(`?company_id=${acme}`, fx.restricted.rest);
        expect(allowed.body.count).to.equal(acmeDefault.length);
        const theirs = await get(`?company_id=${fx.companies.zeta.id}`, fx.other.rest);
        expect(ids(theirs.body)).to.deep.equal(['z01']);
        // Firm B prefers EUR: its own EUR datum converts at 1.
        expect(theirs.body.results[0].converted_value).to.equal('700');
      });

      it('filters by inclusive from and to', async () => {
        const res = await list('&from=2025-01-31&to=2025-02-28');
        expect(ids(res.body)).to.deep.equal(['m04', 'm06', 'm01', 'm09', 'm02', 'm07']);
        expect(ids((await list('&from=2025-03-31')).body)).to.deep.equal(['m08', 'm03', 'm13']);
        expect(ids((await list('&to=2024-12-31')).body)).to.deep.equal(['m05']);
      });

      it('rejects bad dates and from after to, naming the field', async () => {
        await expectBad(`?company_id=${acme}&from=2025-13-01`, 'from');
        await expectBad(`?company_id=${acme}&from=31/01/2025`, 'from');
        await expectBad(`?company_id=${acme}&to=yesterday`, 'to');
        await expectBad(`?company_id=${acme}&from=2025-03-01&to=2025-02-01`, 'from');
      });

      it('filters by repeated categories, custom, and custom metric display names', async () => {
        expect(ids((await list('&category=headcount&category=arr')).body)).to.deep.equal(['m06', 'm09']);
        expect(ids((await list('&category[]=headcount&category[]=arr')).body)).to.deep.equal(['m06', 'm09']);
        expect(ids((await list('&category=custom')).body)).to.deep.equal(['m07', 'm08']);
        const name = encodeURIComponent('Total Number of Customers');
        expect(ids((await list(`&category=${name}`)).body)).to.deep.equal(['m07']);
        expect(ids((await list('&category=nps%20comment')).body)).to.deep.equal(['m08']);
      });

      it('rejects an unknown category, suggesting the closest name', async () => {
        const res = await expectBad(`?company_id=${acme}&category=reveune`, 'category');
        expect(res.body.detail).to.match(/did you mean "revenue"/);
        expect(res.body.detail).to.match(/\/v1\/metrics\/options\//);
        const typo = await expectBad(`?company_id=${acme}&category=NPS%20Coment`, 'category');
        expect(typo.body.detail).to.match(/did you mean "NPS Comment"/);
        // Another firm's custom metric is unknown here.
        await expectBad(`?company_id=${acme}&category=Secret%20Metric`, 'category');
      });

      it('filters by custom_metric and rejects unknown names', async () => {
        expect(ids((await list('&custom_metric=NPS%20Comment')).body)).to.deep.equal(['m08']);
        expect(ids((await list('&category=custom&custom_metric=NPS%20Comment')).body)).to.deep.equal(['m08']);
        expect((await list('&category=revenue&custom_metric=NPS%20Comment')).body.count).to.equal(0);
        const res = await expectBad(`?company_id=${acme}&custom_metric=Plan%20Tire`, 'custom_metric');
        expect(res.body.detail).to.match(/did you mean "Plan Tier"/);
        await expectBad(`?company_id=${acme}&custom_metric=revenue`, 'custom_metric');
      });

      it('adds budget metrics with include_budgets=1, and returns only one budget with budget_id', async () => {
        const all = await list('&include_budgets=1');
        expect(all.body.count).to.equal(acmeDefault.length + 2);
        expect(byId(all.body).m11.is_budget_metric).to.equal(true);
        expect(byId(all.body).m11.budget_id).to.equal(world.budgets.b1);
        const one = await list(`&budget_id=${world.budgets.b2}`);
        expect(ids(one.body)).to.deep.equal(['m12']);
        expect((await list('&budget_id=unknown')).body.count).to.equal(0);
      });

      it('includes deleted metrics only with include_deleted=1', async () => {
        const res = await list('&include_deleted=1');
        expect(ids(res.body)).to.deep.equal([...acmeDefault, 'm10']);
        expect(byId(res.body).m10.deleted_at).to.equal('2025-05-02T00:00:00.000Z');
      });

      it('leaves archived metrics out with include_archived=0 and keeps them by default', async () => {
        expect(ids((await list('&include_archived=0')).body)).to.not.include('m09');
        const kept = await list('&include_archived=1');
        expect(byId(kept.body).m09.archived).to.equal(true);
      });

      it('accepts only the spec values of the include_ flags', async () => {
        await expectBad(`?company_id=${acme}&include_deleted=true`, 'include_deleted');
        await expectBad(`?company_id=${acme}&include_deleted=0`, 'include_deleted');
        await expectBad(`?company_id=${acme}&include_budgets=yes`, 'include_budgets');
        await expectBad(`?company_id=${acme}&include_archived=false`, 'include_archived');
      });

      it('takes only the v1 cadences and include_budgets=1, naming every bad parameter at once as the spec words it', async () => {
        const res = await expectBad(`?company_id=${acme}&from=bad&include_budgets=true&cadence=day`, 'from');
        expect(res.body.errors).to.deep.equal([
          { field: 'from', message: 'Invalid ISO date' },
          { field: 'include_budgets', message: 'Invalid input: expected "1"' },
          {
            field: 'cadence',
            message: 'Invalid option: expected one of "point_in_time"|"month"|"quarter"|"year"',
          },
        ]);
        await expectBad(`?company_id=${acme}&include_budgets=0`, 'include_budgets');
        await expectBad(`?company_id=${acme}&cadence=half_year`, 'cadence');
        await expectBad(`?company_id=${acme}&category=revenue&category=`, 'category[1]');
      });

      it('filters by cadence and rejects a cadence that does not fit the category', async () => {
        expect(ids((await list('&cadence=quarter')).body)).to.deep.equal(['m13']);
        expect(ids((await list('&cadence=point_in_time')).body)).to.deep.equal([
          'm05',
          'm04',
          'm06',
          'm09',
          'm07',
          'm08',
        ]);
        expect(ids((await list('&category=revenue&cadence=month')).body)).to.deep.equal([
          'm01',
          'm02',
          'm03',
        ]);
        await expectBad(`?company_id=${acme}&category=cash_in_bank&cadence=month`, 'cadence');
        await expectBad(`?company_id=${acme}&category=revenue&cadence=point_in_time`, 'cadence');
        await expectBad(`?company_id=${acme}&custom_metric=NPS%20Comment&cadence=year`, 'cadence');
        await expectBad(`?company_id=${acme}&cadence=weekly`, 'cadence');
        await expectBad(`?company_id=${acme}&cadence=day`, 'cadence');
      });

      it('filters by inclusive updated_at bounds, with offsets and whole days', async () => {
        expect(ids((await list('&updated_at_from=2025-04-02T00:00:00Z')).body)).to.deep.equal([
          'm08',
          'm03',
          'm13',
        ]);
        expect(ids((await list('&updated_at_from=2025-04-02T02:00:00%2B02:00')).body)).to.deep.equal([
          'm08',
          'm03',
          'm13',
        ]);
        expect(ids((await list('&updated_at_to=2025-01-05T00:00:00.000Z')).body)).to.deep.equal(['m05']);
        expect(ids((await list('&updated_at_from=2025-03-05&updated_at_to=2025-04-02')).body)).to.deep.equal([
          'm02',
          'm08',
        ]);
      });

      it('rejects bad updated_at bounds, naming the field', async () => {
        await expectBad(`?company_id=${acme}&updated_at_from=yesterday`, 'updated_at_from');
        await expectBad(`?company_id=${acme}&updated_at_to=2025-02-30T00:00:00Z`, 'updated_at_to');
        await expectBad(
          `?company_id=${acme}&updated_at_from=2025-03-01T00:00:00Z&updated_at_to=2025-02-01T00:00:00Z`,
          'updated_at_from',
        );
      });

      it('sorts by created_at: - newest first, + (also decoded as a space) or none oldest first', async () => {
        const oldest = ['m05', 'm01', 'm04', 'm06', 'm02', 'm07', 'm09', 'm03', 'm08', 'm13'];
        expect(ids((await list('&sort_by=-created_at')).body)).to.deep.equal([...oldest].reverse());
        expect(ids((await list('&sort_by=created_at')).body)).to.deep.equal(oldest);
        expect(ids((await list('&sort_by=%2Bcreated_at')).body)).to.deep.equal(oldest);
        expect(ids((await list('&sort_by=+created_at')).body)).to.deep.equal(oldest);
        await expectBad(`?company_id=${acme}&sort_by=updated_at`, 'sort_by');
        await expectBad(`?company_id=${acme}&sort_by=-date`, 'sort_by');
      });

      for (const order of ['', '&sort_by=-created_at']) {
        it(`visits every item exactly once following next from page 1${order ? ' (newest first)' : ''}`, async () => {
          const seen: string[] = [];
          let path: string | null =
            `/v1/metrics/?company_id=${acme}&include_budgets=1&include_deleted=1&page_size=3${order}`;
          let pages = 0;
          while (path) {
            const res = await api(server.url, path, { token: fx.admin.rest });
            expect(res.status).to.equal(200);
            expect(res.body.count).to.equal(acmeRows.length);
            seen.push(...ids(res.body));
            path = res.body.next ? res.body.next.slice(server.url.length) : null;
            pages += 1;
          }
          expect(pages).to.equal(Math.ceil(acmeRows.length / 3));
          expect(seen).to.have.length(acmeRows.length);
          expect(new Set(seen)).to.deep.equal(new Set(acmeRows.map((r) => r.id)));
        });
      }

      it('rejects page_size 0 and a page past the last', async () => {
        await expectBad(`?company_id=${acme}&page_size=0`, 'page_size');
        const past = await list('&page=2');
        expect(past.status).to.equal(404);
        expect(past.body.code).to.equal('not_found');
      });
    });

    describe('GET /v1/metrics/options/', () => {
      const options = (query: string) =>
        api(server.url, `/v1/metrics/options/${query}`, { token: fx.admin.rest });
      const names = (body: Json): string[] =>
        body.results.map((o: { category_name: string }) => o.category_name);

      it('lists the standard categories, then the firm custom metrics, in the reference shape', async () => {
        const res = await options('');
        expect(res.status).to.equal(200);
        expect(res.body.count).to.equal(STANDARD_CATEGORY_NAMES.length + 3);
        expect(names(res.body)).to.deep.equal([
          ...STANDARD_CATEGORY_NAMES,
          'NPS Comment',
          'Plan Tier',
          'Total Number of Customers',
        ]);
        assertReference('main', 'MetricsOptions', ...res.body.results);
        const revenue = res.body.results.find((o: Json) => o.category_name === 'revenue');
        expect(revenue).to.deep.equal({
          category_name: 'revenue',
          category_id: standardCategoryId('revenue'),
          is_standard: true,
          is_archived: false,
          type: 'currency',
          is_point_in_time: false,
          choices: [],
          is_multiple: false,
        });
        const tier = res.body.results.find((o: Json) => o.category_name === 'Plan Tier');
        expect([tier.type, tier.choices, tier.is_archived]).to.deep.equal(['select', ['Free', 'Pro'], true]);
        const other = await api(server.url, '/v1/metrics/options/?is_standard=0', { token: fx.other.rest });
        expect(names(other.body)).to.deep.equal(['Secret Metric']);
      });

      it('filters by category_name, is_standard, category_id, is_point_in_time and is_archived', async () => {
        expect(names((await options('?category_name=REVENUE')).body)).to.deep.equal([
          'revenue',
          'revenue_growth',
          'revenue_per_fte',
        ]);
        expect((await options('?is_standard=true')).body.count).to.equal(STANDARD_CATEGORY_NAMES.length);
        expect((await options('?is_standard=0')).body.count).to.equal(3);
        expect(names((await options(`?category_id=${world.customIds.nps}`)).body)).to.deep.equal([
          'NPS Comment',
        ]);
        expect(names((await options('?is_point_in_time=1&is_standard=0')).body)).to.have.length(3);
        expect(names((await options('?is_point_in_time=0&category_name=arr')).body)).to.deep.equal([
          'churned_arr',
          'contraction_arr',
          'expansion_arr',
          'net_new_arr',
          'new_logo_arr',
          'reactivation_arr',
        ]);
        expect(names((await options('?is_archived=1')).body)).to.deep.equal(['Plan Tier']);
        const bad = await options('?is_standard=maybe');
        expect(bad.status).to.equal(400);
        expect(bad.body.errors[0].field).to.equal('is_standard');
      });

      it("reads a boolean query parameter in any case, as Python's requests sends True", async () => {
        const standard = (await options('?is_standard=true')).body.count;
        for (const spelling of ['True', 'TRUE', 'tRuE']) {
          const res = await options(`?is_standard=${spelling}`);
          expect(res.status, spelling).to.equal(200);
          expect(res.body.count, spelling).to.equal(standard);
        }
        const custom = await options('?is_standard=False');
        expect(custom.status).to.equal(200);
        expect(custom.body.count).to.equal(3);
        const bad = await options('?is_standard=Yes');
        expect(bad.status).to.equal(400);
        expect(bad.body.errors[0].field).to.equal('is_standard');
      });

      it('pages the options with page_size', async () => {
        const seen: string[] = [];
        let path: string | null = '/v1/metrics/options/?page_size=10';
        while (path) {
          const res = await api(server.url, path, { token: fx.admin.rest });
          seen.push(...names(res.body));
          path = res.body.next ? res.body.next.slice(server.url.length) : null;
        }
        expect(seen).to.have.length(STANDARD_CATEGORY_NAMES.length + 3);
        expect(new Set(seen).size).to.equal(seen.length);
      });
    });

    describe('MCP metrics tools', () => {
      const call = (name: string, args: Record<string, unknown>) =>
        mcp.callTool({ name, arguments: { response_format: 'detailed', ...args } });

      it('lists the three metrics tools over MCP, get_company_metrics serving GET /v1/metrics/ too', async () => {
        const { tools } = await mcp.listTools();
        const toolNames = tools.map((tool) => tool.name);
        expect(toolNames).to.include.members([
          'get_company_metrics',
          'get_company_recent_metrics',
          'get_metrics_options',
        ]);
        expect(toolNames).to.not.include('list_metrics');
      });

      it('get_company_metrics counts and lists exactly what REST does for the same filters', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{}, ''],
          [{ from_date: '2025-01-31', to_date: '2025-02-28' }, '&from=2025-01-31&to=2025-02-28'],
          [{ category: 'revenue' }, '&category=revenue'],
          [{ category: 'custom' }, '&category=custom'],
          [{ cadence: 'point_in_time' }, '&cadence=point_in_time'],
          [{ include_budgets: true }, '&include_budgets=1'],
          [
            { category: 'revenue', cadence: 'month', include_budgets: true },
            '&category=revenue&cadence=month&include_budgets=1',
          ],
        ];
        for (const [args, query] of cases) {
          const res = await call('get_company_metrics', { company_ids: [acme], ...args });
          expect(res.isError, query).to.not.equal(true);
          const page = res.structuredContent as Json;
          const rest = await list(query);
          expect(page.count, query).to.equal(rest.body.count);
          // The tool names each row's company as well.
          const rows = page.results as Json[];
          for (const row of rows) expect(row.company_name, query).to.equal(fx.companies.acme.name);
          expect(
            rows.map(({ company_name: _n, ...row }) => row),
            query,
          ).to.deep.equal(rest.body.results);
          expect(JSON.parse(text(res))).to.deep.equal(page);
        }
      });

      it('get_company_metrics takes one company by id or slug with the filters of GET /v1/metrics/, answering as REST does', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ company_slug: fx.companies.acme.slug }, `?company_slug=${fx.companies.acme.slug}`],
          [
            { category: 'headcount', include_archived: true, include_non_fye_aligned: false },
            '&category=headcount',
          ],
          [{ custom_metric: 'NPS Comment' }, '&custom_metric=NPS%20Comment'],
          [{ budget_id: world.budgets.b2 }, `&budget_id=${world.budgets.b2}`],
          [
            { include_deleted: true, include_budgets: true, per_page: 3, page: 2 },
            '&include_deleted=1&include_budgets=1&page_size=3&page=2',
          ],
          [{ include_archived: false, sort_by: '-created_at' }, '&include_archived=0&sort_by=-created_at'],
          [
            { updated_at_from: '2025-03-05', updated_at_to: '2025-04-02' },
            '&updated_at_from=2025-03-05&updated_at_to=2025-04-02',
          ],
        ];
        for (const [args, query] of cases) {
          const res = await call('get_company_metrics', { company_id: acme, ...args });
          expect(res.isError, query).to.not.equal(true);
          const page = res.structuredContent as Json;
          const rest = query.startsWith('?') ? await get(query) : await list(query);
          expect(page.count, query).to.equal(rest.body.count);
          // One company's rows are REST's rows exactly, without company_name.
          expect(page.results, query).to.deep.equal(rest.body.results);
        }
      });

      it('get_company_metrics keeps the fiscal-calendar filter to one company, and each list to its own company parameter', async () => {
        const many = await call('get_company_metrics', {
          company_ids: [acme],
          include_non_fye_aligned: false,
        });
        expect(many.isError).to.equal(true);
        expect(text(many)).to.contain('include_non_fye_aligned');
        const both = await call('get_company_metrics', { company_ids: [acme], company_id: acme });
        expect(both.isError).to.equal(true);
        expect(text(both)).to.contain('company_ids');
        const none = await call('get_company_metrics', {});
        expect(none.isError).to.equal(true);
        expect(text(none)).to.contain('company_ids');
        // REST lists one company: company_ids is not one of its parameters.
        await expectBad(`?company_ids=${acme}`, 'company_id', 'missing_parameter');
      });

      it('get_company_metrics reads several companies and pages 100 at a time', async () => {
        const two = (await call('get_company_metrics', { company_ids: [acme, fx.companies.beta.id] }))
          .structuredContent as Json;
        expect(two.count).to.equal(acmeDefault.length + 1);
        const first = (await call('get_company_metrics', { company_ids: [fx.companies.gamma.id] }))
          .structuredContent as Json;
        expect([first.count, first.per_page, first.results.length, first.has_more]).to.deep.equal([
          150,
          100,
          100,
          true,
        ]);
        const second = (await call('get_company_metrics', { company_ids: [fx.companies.gamma.id], page: 2 }))
          .structuredContent as Json;
        expect([second.results.length, second.has_more]).to.deep.equal([50, false]);
        const seen = new Set([...ids(first), ...ids(second)]);
        expect(seen.size).to.equal(150);
        // Gamma's EUR points convert from the first rate on: before 2025 they have none.
        const last = second.results.at(-1);
        expect([last.date, last.fx_rate, last.converted_value]).to.deep.equal(['2026-06-28', 1.3, '324.35']);
        expect(first.results[0].converted_value).to.equal(null);
      });

      it('get_company_metrics names list_companies for unknown or invisible companies', async () => {
        for (const id of [fx.companies.zeta.id, 'nope']) {
          const res = await call('get_company_metrics', { company_ids: [acme, id] });
          expect(res.isError).to.equal(true);
          expect(text(res)).to.match(/list_companies/);
          expect(text(res)).to.include(id);
        }
        const restricted = await mcpClient(server.url, fx.restricted.pat);
        try {
          const res = await restricted.callTool({
            name: 'get_company_metrics',
            arguments: { company_ids: [fx.companies.beta.id] },
          });
          expect(res.isError).to.equal(true);
          expect(text(res)).to.match(/list_companies/);
        } finally {
          await restricted.close();
        }
      });

      it('get_company_metrics suggests the closest category and points to get_metrics_options', async () => {
        const res = await call('get_company_metrics', { company_ids: [acme], category: 'cash_in_bnk' });
        expect(res.isError).to.equal(true);
        expect(text(res)).to.match(/did you mean "cash_in_bank"/);
        expect(text(res)).to.match(/get_metrics_options/);
        const misfit = await call('get_company_metrics', {
          company_ids: [acme],
          category: 'arr',
          cadence: 'year',
        });
        expect(misfit.isError).to.equal(true);
        expect(text(misfit)).to.match(/point_in_time/);
        const empty = await call('get_company_metrics', { company_ids: [] });
        expect(empty.isError).to.equal(true);
        expect(text(empty)).to.match(/company_ids/);
      });

      it('get_company_recent_metrics returns the latest points by date, ties latest created first', async () => {
        const res = (await call('get_company_recent_metrics', { company_id: acme, limit: 4 }))
          .structuredContent as Json;
        expect(ids(res)).to.deep.equal(['m13', 'm08', 'm03', 'm09']);
        expect([res.company_id, res.category, res.limit, res.count]).to.deep.equal([acme, null, 4, 4]);
        const revenue = (
          await call('get_company_recent_metrics', { company_id: acme, category: 'revenue', limit: 2 })
        ).structuredContent as Json;
        expect(ids(revenue)).to.deep.equal(['m13', 'm03']);
        expect(revenue.results[0].converted_value).to.equal('7200.60');
        const byDefault = (await call('get_company_recent_metrics', { company_id: acme }))
          .structuredContent as Json;
        expect(byDefault.count).to.equal(10);
      });

      it('get_company_recent_metrics rejects a bad limit, company or category with a next step', async () => {
        const limit = await call('get_company_recent_metrics', { company_id: acme, limit: 101 });
        expect(limit.isError).to.equal(true);
        expect(text(limit)).to.match(/limit/);
        const hidden = await call('get_company_recent_metrics', { company_id: fx.companies.zeta.id });
        expect(hidden.isError).to.equal(true);
        expect(text(hidden)).to.match(/list_companies/);
        const category = await call('get_company_recent_metrics', { company_id: acme, category: 'headcont' });
        expect(category.isError).to.equal(true);
        expect(text(category)).to.match(/did you mean "headcount".*get_metrics_options/);
      });

      it('get_metrics_options filters like the REST route', async () => {
        const res = (await call('get_metrics_options', { is_standard: false, per_page: 2 }))
          .structuredContent as Json;
        expect([res.count, res.has_more]).to.deep.equal([3, true]);
        expect(res.results.map((o: Json) => o.category_name)).to.deep.equal(['NPS Comment', 'Plan Tier']);
        const named = (await call('get_metrics_options', { category_name: 'burn' }))
          .structuredContent as Json;
        expect(named.results.map((o: Json) => o.category_name)).to.deep.equal(['burn_per_fte', 'net_burn']);
      });
    });

    describe('metrics repository', () => {
      it('reads one visible datum with its rate, and its comments oldest first', async () => {
        const scope = { firmId: fx.firmA.id, companyIds: null };
        const datum = await fx.repos.metrics.get(scope, 'm02', 'USD');
        expect([datum?.category_name, datum?.fx_rate]).to.deep.equal(['revenue', '1.10']);
        expect(await fx.repos.metrics.get({ firmId: fx.firmB.id, companyIds: null }, 'm02', 'EUR')).to.equal(
          undefined,
        );
        expect(
          await fx.repos.metrics.get(
            { firmId: fx.firmA.id, companyIds: [fx.companies.beta.id] },
            'm02',
            'USD',
          ),
        ).to.equal(undefined);
        const comments = await fx.repos.metrics.comments(['m01']);
        expect(comments.map((c) => c.content)).to.deep.equal(['first', 'second']);
      });
    });
  });
}
