import { expect } from 'chai';
import { IRR_DECIMALS, xirr } from '../core/xirr.ts';
import type { RunningServer } from '../server/http.ts';
import { ImportRejected, importData } from '../services/import.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

/** The slugs `base`, `base-2` … `base-n`, sorted as strings. */
const slugRun = (base: string, n: number) =>
  Array.from({ length: n }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`)).sort();

describe('the IRR of break-even cash flows', () => {
  it('is exactly 0, not a rounding residue, and other rates keep their first nine decimals', () => {
    const breakEven = [
      [
        { amount: -100, date: '2020-01-01' },
        { amount: -50, date: '2020-07-01' },
        { amount: 150, date: '2022-03-15' },
      ],
      [
        { amount: -1234567.89, date: '2019-03-31' },
        { amount: -765432.11, date: '2020-11-30' },
        { amount: 2000000, date: '2024-06-30' },
      ],
      [
        { amount: -0.3, date: '2019-03-31' },
        { amount: 0.1, date: '2020-11-30' },
        { amount: 0.2, date: '2024-06-30' },
      ],
    ];
    for (const flows of breakEven) {
      const { rate } = xirr(flows);
      expect(Object.is(rate, 0), `${rate}`).to.equal(true);
    }
    // 100 → 121 over two years (730 days at actual/365) is 10 % a year.
    const { rate } = xirr([
      { amount: -100, date: '2021-01-01' },
      { amount: 121, date: '2023-01-01' },
    ]);
    expect(rate).to.equal(0.1);
    expect(IRR_DECIMALS).to.equal(9);
  });
});

for (const dialect of dialects) {
  describe(`audit findings (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, {
        clock: new TestClock(new Date(NOW)),
        env: { RATE_LIMIT_PER_MINUTE: '1000000' },
      });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    const create = (base: string, name: string) =>
      api(base, '/v1/companies/', { token: fx.editor.rest, method: 'POST', body: { name } });

    it('gives ten parallel creates of one name ten distinct slugs, all 201', async () => {
      const responses = await Promise.all(Array.from({ length: 10 }, () => create(server.url, 'Race Co')));
      expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
      expect(responses.map((r) => r.body.slug).sort()).to.deep.equal(slugRun('race-co', 10));
    });

    const point = (extra: Record<string, unknown> = {}) => ({
      company_id: fx.companies.acme.id,
      category: 'revenue',
      metric_cadence: 'month',
      date: '2025-01-31',
      value: '1000',
      currency: 'USD',
      ...extra,
    });
    const post = (path: string, body: unknown, token = fx.editor.rest) =>
      api(server.url, path, { token, method: 'POST', body });

    it("answers 404 to a write naming another firm's company, as the read of it does", async () => {
      const zeta = fx.companies.zeta.id;
      const read = await api(server.url, `/v1/metrics/?company_id=${zeta}`, { token: fx.editor.rest });
      expect(read.status).to.equal(404);
      const metrics = await post('/v1/metrics/', [point({ company_id: zeta })]);
      expect(metrics.status).to.equal(404);
      expect(metrics.body.code).to.equal('not_found');
      expect(metrics.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([
        'items[0].company_id',
      ]);
      const notes = await post('/v1/notes/', [{ note: 'x', company_id: zeta }]);
      expect(notes.status).to.equal(404);
      // With other faults as well, one 400 names every field, the company among them.
      const mixed = await post('/v1/metrics/', [point({ company_id: zeta }), point({ date: 'soon' })]);
      expect(mixed.status).to.equal(400);
      expect(mixed.body.errors.map((e: { field: string }) => e.field)).to.include.members([
        'items[0].company_id',
        'items[1].date',
      ]);
      expect(await t.db('metric_data').where({ company_id: zeta }).count({ n: '*' }).first()).to.satisfy(
        (r: { n: number | string }) => Number(r.n) === 0,
      );
    });

    describe('actual data dated after the current month', () => {
      const headcount = (date: string, extra: Record<string, unknown> = {}) => ({
        company_id: fx.companies.acme.id,
        category: 'headcount',
        metric_cadence: 'point_in_time',
        date,
        value: '12',
        ...extra,
      });

      it('is refused on every write path with a 400 naming the date; budget data may be future', async () => {
        const before = await t.db('metric_data').count({ n: '*' }).first();
        const res = await post('/v1/metrics/', [headcount('2026-06-30'), headcount('9999-12-31')]);
        expect(res.status).to.equal(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['items[1].date']);
        expect(res.body.errors[0].message).to.match(/on or before 2026-06-30/);
        expect(await t.db('metric_data').count({ n: '*' }).first()).to.deep.equal(before);
        // The last day of the current month (by the service clock) is still fine.
        expect((await post('/v1/metrics/', [headcount('2026-06-30')])).status).to.equal(201);
        await t.db('metric_data').where({ date: '2026-06-30' }).delete();

        const budgetId = 'bdg-audit-future';
        await t.db('budgets').insert({
          id: budgetId,
          firm_id: fx.firmA.id,
          company_id: fx.companies.acme.id,
          name: 'Plan 2031',
          date: '2031-01-01',
          color: '#ffffff',
          description: '',
          created_at: NOW,
        });
        const plan = await post('/v1/metrics/', [
          headcount('2031-05-31', { is_budget_metric: true, budget_id: budgetId }),
        ]);
        expect(plan.status).to.equal(201);

        const firm = await fx.repos.firms.getBySlug(fx.firmA.slug);
        const metric = (date: string, budget?: string) => ({
          where: `metrics[${date}]`,
          order: 0,
          company_slug: fx.companies.acme.slug,
          category: 'headcount',
          date,
          cadence: 'point_in_time',
          value: '13',
          currency: null,
          ...(budget ? { budget } : {}),
        });
        const data = { companies: [], budgets: [], notes: [], financings: [] };
        let refused: unknown;
        try {
          await importData(t.db, firm!, { ...data, metrics: [metric('2031-05-31')] }, { now: NOW });
        } catch (err) {
          refused = err;
        }
        expect(refused).to.be.instanceOf(ImportRejected);
        expect((refused as ImportRejected).problems.map((p) => p.message)).to.deep.equal([
          'date 2031-05-31 is after 2026-06-30, the end of the current month: actual data cannot be dated in the future (budget data can)',
        ]);
        const imported = await importData(
          t.db,
          firm!,
          { ...data, metrics: [metric('2031-04-30', 'Plan 2031')] },
          { now: NOW },
        );
        expect(imported.created).to.equal(1);
      });

      it("never moves the firm's latest month past the current one when such rows are already stored", async () => {
        const seed = (companyId: string, date: string, category = 'cash_in_bank', value = '1000') =>
          insertDatum(t.db, {
            firmId: fx.firmA.id,
            companyId,
            category,
            cadence: 'point_in_time',
            date,
            value,
            currency: category === 'cash_in_bank' ? 'USD' : null,
          });
        await seed(fx.companies.acme.id, '2026-05-31');
        await seed(fx.companies.beta.id, '2026-05-31');
        await seed(fx.companies.gamma.id, '2026-04-30');
        // Written before the rule existed: far in the future, and in a later month of this year.
        await seed(fx.companies.beta.id, '9999-12-31', 'headcount', '40');
        await seed(fx.companies.gamma.id, '2026-09-30');
        const token = fx.admin.rest;
        const overview = await api(server.url, '/v1/portfolio/overview/', { token });
        expect(overview.status).to.equal(200);
        expect(overview.body.firm_latest_month).to.equal('2026-05');
        const screen = await api(server.url, '/v1/portfolio/screen/?stale=false&page_size=100', { token });
        expect(screen.status).to.equal(200);
        expect(screen.body.results.map((c: { name: string }) => c.name).sort()).to.deep.equal(
          [fx.companies.acme.name, fx.companies.beta.name, fx.companies.gamma.name].sort(),
        );
      });
    });

    describe('decimal precision', () => {
      const ADD_ROUNDS = '/beta/investment/financing-rounds/add/';
      /** A financing round of Acme as JSON text, with `fields` spliced in as raw JSON (a repeated key wins). */
      const roundText = (fields: string) =>
        `{"financing_rounds":[{"company_id":"${fx.companies.acme.id}","name":"Series X","closing_date":"2025-01-15",` +
        `"co_investors":[{"name":"Delta Partners","is_lead":true}],"round_size":{"value":"1000","currency":"USD"},` +
        `"pre_money_valuation":{"value":"40000000","currency":"USD"},"fully_diluted_shares":"3000000"${fields}}]}`;
      const send = (path: string, text: string, token = fx.admin.rest) =>
        fetch(server.url + path, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: text,
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

      it('refuses a decimal of more than 30 significant digits with a 400 naming the field', async () => {
        const huge = `1${'0'.repeat(300_000)}`;
        const res = await send(
          ADD_ROUNDS,
          roundText(
            `,"pre_money_valuation":{"value":"${huge}","currency":"USD"},"fully_diluted_shares":"1${'2'.repeat(30)}"`,
          ),
        );
        expect(res.status).to.equal(400);
        expect(fieldsOf(res.body)).to.deep.equal([
          'financing_rounds[0].pre_money_valuation.value',
          'financing_rounds[0].fully_diluted_shares',
        ]);
        expect(res.body.errors[1].message).to.equal('has 31 significant digits; at most 30 are accepted');
        const thirty = await send(
          ADD_ROUNDS,
          roundText(`,"pre_money_valuation":{"value":"${'9'.repeat(28)}.25","currency":"USD"}`),
        );
        expect(thirty.status, JSON.stringify(thirty.body)).to.equal(201);
        expect(thirty.body[0].pre_money_valuation.value).to.equal(`${'9'.repeat(28)}.25`);
        const metric = await post('/v1/metrics/', [point({ value: `0.${'1'.repeat(31)}` })]);
        expect(metric.status).to.equal(400);
        expect(fieldsOf(metric.body)).to.deep.equal(['items[0].value']);
      });

      it('refuses a JSON number it cannot hold exactly, advising a string, and takes plain ones', async () => {
        for (const inexact of [
          '1234567890123456789012345678901234567890',
          '0.1000000000000000055511151231257827',
        ]) {
          const res = await send(
            ADD_ROUNDS,
            roundText(`,"round_size":{"value":${inexact},"currency":"USD"}`),
          );
          expect(res.status, inexact).to.equal(400);
          expect(fieldsOf(res.body)).to.deep.equal(['financing_rounds[0].round_size.value']);
          expect(res.body.errors[0].message).to.match(/send it as a string/);
          const asString = await send(
            ADD_ROUNDS,
            roundText(`,"round_size":{"value":"${inexact}","currency":"USD"}`),
          );
          expect(asString.status, inexact).to.equal(inexact.length > 31 ? 400 : 201);
        }
        const kept = await send(
          ADD_ROUNDS,
          roundText(`,"round_size":{"value":"0.1000000000000000055511151231257827","currency":"USD"}`),
        );
        expect(kept.status).to.equal(400); // 34 decimal places: the 30-digit rule
        const exact = await send(
          ADD_ROUNDS,
          roundText(
            ',"round_size":{"value":1.50,"currency":"EUR","fx_rate":0.1},"pre_money_valuation":{"value":1e3,"currency":"USD"},"fully_diluted_shares":12345.678',
          ),
        );
        expect(exact.status, JSON.stringify(exact.body)).to.equal(201);
        expect(exact.body[0].round_size.value).to.equal('1.5');
        expect(exact.body[0].pre_money_valuation.value).to.equal('1000');
        expect(exact.body[0].fully_diluted_shares).to.equal('12345.678');
        // A body that is an array names the tool's field; MCP arguments are named as the tool's input.
        const metrics = await send(
          '/v1/metrics/',
          `[{"value":"1","date":"2025-01-31","x":9007199254740993}]`,
        );
        expect(fieldsOf(metrics.body)).to.deep.equal(['items[0].x']);
        const mcp = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${fx.admin.pat}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_financing_rounds","arguments":{"financing_rounds":[{"round_size":{"value":0.1000000000000000055511151231257827}}]}}}`,
        });
        expect(mcp.status).to.equal(400);
        expect(fieldsOf(await mcp.json())).to.deep.equal(['financing_rounds[0].round_size.value']);
      });
    });

    if (dialect.name === 'postgres') {
      describe('on two nodes over one database', () => {
        let nodeB: ChildServer;
        before(async () => {
          nodeB = await spawnServer(t.url);
        });
        after(async () => {
          await nodeB?.stop();
        });

        it('gives ten parallel creates of one name, split over both nodes, ten distinct slugs', async () => {
          const nodes = [server.url, nodeB.url];
          const responses = await Promise.all(
            Array.from({ length: 10 }, (_, i) => create(nodes[i % 2]!, 'Two Node Co')),
          );
          expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
          expect(responses.map((r) => r.body.slug).sort()).to.deep.equal(slugRun('two-node-co', 10));
        });
      });
    }
  });
}
