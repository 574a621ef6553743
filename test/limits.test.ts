import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';

const mcpHeaders = (token: string) => ({
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});

function toolCall(id: number) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_companies', arguments: {} } };
}

describe('limits', () => {
  let t: TestDb;
  let fx: Fixture;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    await t?.drop();
  });

  describe('MCP batches', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db, { env: { RATE_LIMIT_PER_MINUTE: '5' } });
    });
    after(async () => server?.close());

    it('refuses a JSON-RPC batch on /mcp with 400 and error -32600, running none of its calls', async () => {
      const batch = Array.from({ length: 100 }, (_, i) => toolCall(i + 1));
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(fx.editor.pat),
        body: JSON.stringify(batch),
      });
      expect(res.status).to.equal(400);
      const body = (await res.json()) as {
        jsonrpc: string;
        id: unknown;
        error: { code: number; message: string };
      };
      expect(body.jsonrpc).to.equal('2.0');
      expect(body.id).to.equal(null);
      expect(body.error.code).to.equal(-32600);
      expect(body.error.message).to.match(/batch/i);
    });

    it('counts every /mcp request against the rate limit before reading its body, even malformed ones', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: mcpHeaders(fx.admin.pat),
          body: i % 2 ? '[' : JSON.stringify([toolCall(1)]),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 5).every((s) => s === 400)).to.equal(true);
      expect(statuses[5]).to.equal(429);
    });
  });
});
