import { expect } from 'chai';
import { IRR_DECIMALS, xirr } from '../core/xirr.ts';
import type { RunningServer } from '../server/http.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
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
