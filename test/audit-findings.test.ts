import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

/** The slugs `base`, `base-2` … `base-n`, sorted as strings. */
const slugRun = (base: string, n: number) =>
  Array.from({ length: n }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`)).sort();

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
