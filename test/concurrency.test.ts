import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { api, startTestServer } from './helpers/server.ts';
import { buildWorld, mcpCall, type World } from './helpers/world.ts';

// Many clients at once against two nodes over one database: this process's server and a second server
// process (for SQLite that is two processes writing one file, as when a CLI import runs beside the
// server). Writers that get a 503 (the database was busy) retry with the same Idempotency-Key, as a
// client following Retry-After would; nothing may answer 500, and nothing may be lost or doubled.

const COMMENT_WRITERS = 20;
const SAME_KEY_WRITERS = 10;
const READERS = 8;

type Reply = Awaited<ReturnType<typeof api>>;

for (const dialect of dialects) {
  describe(`many clients at once on two nodes sharing one database (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let w: World;
    let nodeA: RunningServer;
    let nodeB: ChildServer;
    let nodes: string[];
    const statuses = new Map<number, number>();
    let busyRetries = 0;

    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

    /** A write that retries on 503 (the database was busy) after a short pause, with its Idempotency-Key. */
    async function write(
      node: string,
      path: string,
      method: string,
      body: unknown,
      key: string,
    ): Promise<Reply> {
      for (let attempt = 1; ; attempt++) {
        const res = await api(node, path, {
          token: w.roles.admin.rest,
          method,
          body,
          headers: { 'Idempotency-Key': key },
        });
        count(res.status);
        if (res.status !== 503 || attempt === 20) return res;
        expect(res.headers.get('retry-after')).to.match(/^\d+$/);
        busyRetries += 1;
        await sleep(20 + Math.random() * 80);
      }
    }

    /** Readers over REST and MCP on both nodes until `done`; every answer must be a 200. */
    function readers(done: () => boolean): Promise<number>[] {
      const reads: ((node: string) => Promise<number>)[] = [
        async (node) =>
          (await api(node, `/v1/metrics/?company_id=${w.own.company}`, { token: w.roles.viewer.rest }))
            .status,
        async (node) => (await api(node, '/v1/companies/', { token: w.roles.viewer.rest })).status,
        async (node) =>
          (
            await api(node, '/beta/investment/financing-events/get/', {
              token: w.roles.viewer.rest,
              method: 'POST',
              body: { company_ids: [w.own.company] },
            })
          ).status,
        async (node) => {
          const res = await mcpCall(node, w.roles.viewer.pat, 'get_company_recent_metrics', {
            company_id: w.own.company,
          });
          return res.status === 200 && res.body?.result && !res.body.result.isError ? 200 : res.status || 599;
        },
      ];
      return Array.from({ length: READERS }, async (_, i) => {
        let n = 0;
        while (!done()) {
          const status = await reads[i % reads.length]!(nodes[i % nodes.length]!);
          count(status);
          expect(status, `reader ${i}`).to.equal(200);
          n += 1;
        }
        return n;
      });
    }

    before(async () => {
      t = await dialect.open();
      w = await buildWorld(t.db);
      nodeA = await startTestServer(t.db, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
      nodeB = await spawnServer(t.url);
      nodes = [nodeA.url, nodeB.url];
    });
    after(async () => {
      const summary = [...statuses].map(([s, n]) => `${n}× ${s}`).join(', ');
      console.log(
        `      concurrency (${dialect.name}): answers ${summary}; ${busyRetries} retries after a 503`,
      );
      await nodeB?.stop();
      await nodeA?.close();
      await t?.drop();
    });

    it(`loses no comment when ${COMMENT_WRITERS} clients add one to the same datum at once, while ${READERS} readers read`, async () => {
      let done = false;
      const reading = readers(() => done);
      const replies = await Promise.all(
        Array.from({ length: COMMENT_WRITERS }, (_, i) =>
          write(
            nodes[i % 2]!,
            `/v1/metrics/${w.own.datum}/`,
            'PATCH',
            { comments: [{ content: `concurrent comment ${i}` }] },
            `comment-${dialect.name}-${i}`,
          ),
        ),
      );
      done = true;
      const reads = (await Promise.all(reading)).reduce((a, b) => a + b, 0);
      expect(reads).to.be.above(0);
      for (const [i, res] of replies.entries())
        expect(res.status, `writer ${i}: ${JSON.stringify(res.body)}`).to.equal(200);

      const rows = await t
        .db('metric_comments')
        .where({ datum_id: w.own.datum })
        .orderBy('seq')
        .select('content', 'seq');
      const contents = rows.map((r) => r.content as string);
      expect([...contents].sort()).to.deep.equal(
        Array.from({ length: COMMENT_WRITERS }, (_, i) => `concurrent comment ${i}`).sort(),
      );
      // Positions are taken one after the other: 1..n, none shared.
      expect(rows.map((r) => Number(r.seq))).to.deep.equal(
        Array.from({ length: COMMENT_WRITERS }, (_, i) => i + 1),
      );
      const history = await t.db('metric_history').where({ datum_id: w.own.datum }).count({ n: '*' }).first();
      expect(Number(history?.n)).to.equal(COMMENT_WRITERS);
      // The last writer saw every comment before its own.
      const longest = Math.max(...replies.map((r) => (r.body.comments as unknown[]).length));
      expect(longest).to.equal(COMMENT_WRITERS);
      expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).to.deep.equal([]);
    });

    it(`creates one round when ${SAME_KEY_WRITERS} clients send the same financing add with one Idempotency-Key at once, and all get its response`, async () => {
      const name = `Same key round ${dialect.name}`;
      const body = {
        financing_rounds: [
          {
            company_id: w.own.company,
            name,
            pre_money_valuation: { value: '12000000', currency: 'USD' },
            round_size: { value: '3000000', currency: 'USD' },
            fully_diluted_shares: '2000000',
            closing_date: '2025-11-30',
            co_investors: [{ name: 'Same Key Ventures', is_lead: true }],
          },
        ],
      };
      let done = false;
      const reading = readers(() => done);
      const replies = await Promise.all(
        Array.from({ length: SAME_KEY_WRITERS }, (_, i) =>
          write(
            nodes[i % 2]!,
            '/beta/investment/financing-rounds/add/',
            'POST',
            body,
            `same-key-${dialect.name}`,
          ),
        ),
      );
      done = true;
      await Promise.all(reading);
      for (const [i, res] of replies.entries())
        expect(res.status, `client ${i}: ${JSON.stringify(res.body)}`).to.equal(201);
      for (const res of replies) expect(res.body).to.deep.equal(replies[0]!.body);
      const originals = replies.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
      expect(originals, 'responses not marked as replays').to.have.length(1);
      const rounds = await t.db('financings').where({ name });
      expect(rounds).to.have.length(1);
      expect((replies[0]!.body as { id: string }[])[0]!.id).to.equal(rounds[0].id);
      const investors = await t.db('financing_co_investors').where({ financing_id: rounds[0].id });
      expect(investors).to.have.length(1);
      expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).to.deep.equal([]);
    });
  });
}
