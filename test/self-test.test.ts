import { expect } from 'chai';
import knexFactory from 'knex';
import { selfTest } from '../server/self-test.ts';
import { postgresTestDb, postgresUrl, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { startTestServer } from './helpers/server.ts';

// At start the server checks that the pinned libraries behave as its fast paths expect: a kept read runs
// as the driver's prepared statement with each call's values, and the MCP SDK answers an initialize.

for (const [dialect, open] of [
  ['sqlite', sqliteTestDb],
  ['postgres', postgresTestDb],
] as const) {
  (dialect === 'postgres' && !postgresUrl ? describe.skip : describe)(
    `start-up self-test (${dialect})`,
    () => {
      let t: TestDb;
      before(async () => {
        t = await open();
      });
      after(async () => {
        await t?.drop();
      });

      it('passes on a database opened by the service, quickly', async () => {
        const started = performance.now();
        await selfTest(t.db);
        // Loading the MCP SDK is most of it; a loaded machine takes a few hundred milliseconds.
        expect(performance.now() - started).to.be.below(5000);
      });
    },
  );
}

describe('start-up self-test refusing to start', () => {
  it('stops the server with a clear message when kept reads do not run as prepared statements', async () => {
    // A database the service did not open: its reads fall back to knex, as a changed library would make them.
    const plain = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    let refused: Error | undefined;
    try {
      const server = await startTestServer(plain);
      await server.close();
    } catch (err) {
      refused = err as Error;
    } finally {
      await plain.destroy();
    }
    expect(refused?.message).to.match(
      /^start-up self-test failed \(prepared reads\): 0 of 3 kept reads ran as prepared statements/,
    );
    expect(refused?.message).to.include('npm ci');
  });
});
