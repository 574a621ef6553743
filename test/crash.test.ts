import { expect } from 'chai';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { api } from './helpers/server.ts';
import { buildWorld, type World } from './helpers/world.ts';

// SIGKILL durability: the real server runs in a child process; clients stream writes at it; the server
// is killed with SIGKILL mid-stream (twice), restarted on the same database, and every write that was
// acknowledged (a 2xx received) must be there, and every write that was not must be all there or absent.

const KILLS = 2;
const LANES = 6;
const INVESTORS = 3;
const ROUNDS_PER_REQUEST = 2;

type Outcome = 'acknowledged' | 'unacknowledged';

interface FinancingWrite {
  names: string[];
  investors: string[][];
  outcome: Outcome;
}

for (const dialect of dialects) {
  describe(`durability of acknowledged writes across SIGKILL (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let w: World;
    let server: ChildServer | undefined;

    before(async () => {
      t = await dialect.open();
      w = await buildWorld(t.db);
    });
    after(async () => {
      await server?.stop();
      await t?.drop();
    });

    it(`keeps every acknowledged comment and financing through ${KILLS} SIGKILLs mid-stream, and half-writes none`, async () => {
      const comments = new Map<string, Outcome>();
      const financings: FinancingWrite[] = [];
      let serial = 0;
      const token = w.roles.admin.rest;

      /** One lane: writes one after the other until the server dies under it. */
      async function lane(url: string, lane: number, alive: () => boolean, onAck: () => void) {
        while (alive()) {
          const n = ++serial;
          try {
            if (n % 2 === 0) {
              const content = `crash-${dialect.name}-${lane}-${n}`;
              comments.set(content, 'unacknowledged');
              const res = await api(url, `/v1/metrics/${w.own.datum}/`, {
                token,
                method: 'PATCH',
                body: { comments: [{ content }] },
              });
              if (res.status !== 200)
                throw new Error(`PATCH answered ${res.status}: ${JSON.stringify(res.body)}`);
              comments.set(content, 'acknowledged');
            } else {
              const write: FinancingWrite = { names: [], investors: [], outcome: 'unacknowledged' };
              for (let r = 0; r < ROUNDS_PER_REQUEST; r++) {
                write.names.push(`Crash ${dialect.name} ${n}.${r}`);
                write.investors.push(Array.from({ length: INVESTORS }, (_, i) => `Investor ${n}.${r}.${i}`));
              }
              financings.push(write);
              const res = await api(url, '/beta/investment/financing-rounds/add/', {
                token,
                method: 'POST',
                body: {
                  financing_rounds: write.names.map((name, r) => ({
                    company_id: w.own.company,
                    name,
                    pre_money_valuation: { value: '1000000', currency: 'USD' },
                    round_size: { value: '250000', currency: 'USD' },
                    fully_diluted_shares: '100000',
                    closing_date: '2025-03-31',
                    co_investors: write.investors[r]!.map((investor, i) => ({
                      name: investor,
                      is_lead: i === 0,
                    })),
                  })),
                },
              });
              if (res.status !== 201)
                throw new Error(`financing add answered ${res.status}: ${JSON.stringify(res.body)}`);
              write.outcome = 'acknowledged';
            }
            onAck();
          } catch (err) {
            // Only the kill may cut a request short; anything else is a failure of its own.
            if (alive()) throw err;
          }
        }
      }

      for (let kill = 1; kill <= KILLS; kill++) {
        server = await spawnServer(t.url);
        let acks = 0;
        let killed = false;
        // Kill after a varying number of acknowledgements, while every lane has a request in flight.
        const killAfter = 30 + Math.floor(Math.random() * 30);
        let killing: Promise<void> | undefined;
        const current = server;
        await Promise.all(
          Array.from({ length: LANES }, (_, i) =>
            lane(
              current.url,
              i,
              () => !killed,
              () => {
                acks += 1;
                if (acks >= killAfter && !killed) {
                  killed = true;
                  killing = current.kill();
                }
              },
            ),
          ),
        );
        await killing;
        expect(current.child.signalCode, current.stderr()).to.equal('SIGKILL');
      }

      // Restart on the same database: the service answers, and everything acknowledged is there.
      server = await spawnServer(t.url);
      const contents = (await t.db('metric_comments').where({ datum_id: w.own.datum }).select('content')).map(
        (r) => r.content as string,
      );
      const counted = new Map<string, number>();
      for (const c of contents) counted.set(c, (counted.get(c) ?? 0) + 1);
      const history = await t.db('metric_history').where({ datum_id: w.own.datum }).count({ n: '*' }).first();

      const ackedComments = [...comments].filter(([, o]) => o === 'acknowledged').map(([c]) => c);
      const lostComments = ackedComments.filter((c) => counted.get(c) !== 1);
      expect(lostComments, 'acknowledged comments missing (or duplicated) after the restart').to.deep.equal(
        [],
      );
      for (const c of contents) expect(comments.has(c), `a comment nobody sent: ${c}`).to.equal(true);
      // Each PATCH adds one comment and one history row in one transaction: never one without the other.
      expect(Number(history?.n)).to.equal(contents.length);

      const rounds = await t
        .db('financings')
        .where({ company_id: w.own.company })
        .where('name', 'like', `Crash ${dialect.name} %`)
        .select('id', 'name');
      const byName = new Map(rounds.map((r) => [r.name as string, r.id as string]));
      const investorRows = await t
        .db('financing_co_investors')
        .whereIn(
          'financing_id',
          rounds.map((r) => r.id as string),
        )
        .orderBy(['financing_id', 'position'])
        .select('financing_id', 'name');
      const investorsOf = new Map<string, string[]>();
      for (const r of investorRows) {
        investorsOf.set(r.financing_id as string, [
          ...(investorsOf.get(r.financing_id as string) ?? []),
          r.name as string,
        ]);
      }
      let inFlightCommitted = 0;
      for (const write of financings) {
        const present = write.names.filter((name) => byName.has(name));
        if (write.outcome === 'acknowledged') {
          expect(present, `acknowledged financing request ${write.names.join(', ')}`).to.deep.equal(
            write.names,
          );
        } else {
          // All rounds of a request or none of them.
          expect(present.length, `half-written request ${write.names.join(', ')}`).to.be.oneOf([
            0,
            write.names.length,
          ]);
          if (present.length) inFlightCommitted += 1;
        }
        write.names.forEach((name, r) => {
          const id = byName.get(name);
          if (id) expect(investorsOf.get(id), `co-investors of ${name}`).to.deep.equal(write.investors[r]);
        });
      }

      // The restarted server serves what survived, and takes new writes.
      const listed = await api(server.url, '/beta/investment/financing-events/get/', {
        token,
        method: 'POST',
        body: { company_ids: [w.own.company] },
      });
      expect(listed.status).to.equal(200);
      const listedNames = new Set((listed.body as { name: string }[]).map((f) => f.name));
      for (const write of financings.filter((f) => f.outcome === 'acknowledged')) {
        for (const name of write.names) expect(listedNames.has(name), name).to.equal(true);
      }
      const after = await api(server.url, `/v1/metrics/${w.own.datum}/`, {
        token,
        method: 'PATCH',
        body: { comments: [{ content: 'after the crashes' }] },
      });
      expect(after.status).to.equal(200);

      const ackedFinancings = financings.filter((f) => f.outcome === 'acknowledged');
      const foundFinancings = ackedFinancings.filter((f) => f.names.every((n) => byName.has(n)));
      const unackedComments = [...comments.values()].filter((o) => o === 'unacknowledged').length;
      const unackedCommitted = [...comments].filter(
        ([c, o]) => o === 'unacknowledged' && counted.has(c),
      ).length;
      console.log(
        `      crash (${dialect.name}): ${KILLS} SIGKILLs; ${ackedComments.length + ackedFinancings.length} writes ` +
          `acknowledged (${ackedComments.length} comments, ${ackedFinancings.length} financing requests of ` +
          `${ROUNDS_PER_REQUEST} rounds × ${INVESTORS} co-investors), ` +
          `${ackedComments.length - lostComments.length + foundFinancings.length} found after restart; ` +
          `${unackedComments + financings.length - ackedFinancings.length} cut by the kills ` +
          `(${unackedCommitted + inFlightCommitted} had committed, the rest absent; none half-written)`,
      );
    });
  });
}
