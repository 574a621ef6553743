import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));

describe('prototype keys in JSON bodies', () => {
  describe('over a real server', () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await sqliteTestDb();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    const raw = (path: string, method: string, body: string, token: string) =>
      fetch(server.url + path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body,
      });

    it('refuses a top-level __proto__ key in a REST body with a 400 naming it, and writes nothing', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '1000.00',
      });
      const res = await raw(`/v1/metrics/${id}/`, 'PATCH', '{"__proto__": {"value": "999"}}', fx.editor.rest);
      expect(res.status).to.equal(400);
      const problem = await res.json();
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.__proto__']);
      const row = await t.db('metric_data').where({ id }).first();
      expect(String(row.value)).to.match(/^1000(\.0+)?$/);
    });

    it('refuses a nested __proto__ key in a REST body, naming its path', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '5.00',
      });
      const body = '{"comments": [{"__proto__": {"isAdmin": true}, "text": "x"}]}';
      const res = await raw(`/v1/metrics/${id}/`, 'PATCH', body, fx.editor.rest);
      expect(res.status).to.equal(400);
      const problem = await res.json();
      expect(problem.errors[0].field).to.equal('body.comments[0].__proto__');
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(0);
    });

    it('refuses a __proto__ key in the arguments of an MCP tool call', async () => {
      const body =
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_companies","arguments":{"__proto__":{"per_page":1}}}}';
      const res = await raw('/mcp', 'POST', body, fx.viewer.pat);
      expect(res.status).to.equal(400);
      expect(JSON.stringify(await res.json())).to.include('__proto__');
    });

    it('still accepts "__proto__" as a value, not a key', async () => {
      const res = await api(server.url, '/v1/companies/?name=__proto__', { token: fx.viewer.rest });
      expect(res.status).to.equal(200);
      expect(res.body.count).to.equal(0);
    });
  });
});

describe('SQLite writers queue for the lock instead of failing (BEGIN IMMEDIATE)', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'pds-lock-'));

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
  });
  after(async () => {
    await server?.close();
    await t?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the default synchronous=FULL, so an acknowledged write survives power loss', async () => {
    const [row] = await t.db.raw('pragma synchronous');
    expect(row.synchronous).to.equal(2); // 2 = FULL, 1 = NORMAL
  });

  it('loses no API write while a CLI import writes the same database', async function () {
    this.timeout(60_000);
    const datums = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.gamma.id,
          category: 'revenue',
          value: '1.00',
          date: `2020-${String((i % 12) + 1).padStart(2, '0')}-28`,
          cadence: i < 12 ? 'month' : 'quarter',
        }),
      ),
    );
    const lines = ['company_slug,category,date,cadence,value,currency'];
    const categories = ['revenue', 'ebitda', 'net_income', 'gross_profit', 'cash_receipts'];
    for (const category of categories) {
      for (let m = 0; m < 2000; m++) {
        // The last day of month m after January 1800 (all in the past: actuals cannot be future-dated).
        const date = new Date(Date.UTC(1800, m + 1, 0)).toISOString().slice(0, 10);
        lines.push(`${fx.companies.acme.slug},${category},${date},month,${m}.5,USD`);
      }
    }
    const csv = join(dir, 'big.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);

    const child = spawn(process.execPath, [BIN, 'import', csv, '--firm', fx.firmA.slug], {
      env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const exited = once(child, 'exit');
    let running = true;
    void exited.then(() => {
      running = false;
    });

    const statuses: number[] = [];
    let n = 0;
    while (running || statuses.length < 20) {
      const id = datums[n % datums.length]!;
      n++;
      const res = await api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body: { value: String(n) },
      });
      statuses.push(res.status);
    }
    const [code] = await exited;
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(stdout).to.match(/^created 10000,/);
    expect(statuses.filter((s) => s !== 200)).to.deep.equal([]);
    // Every acknowledged write is there: the last value written to each datum is the one stored.
    const last = new Map<string, string>();
    for (let i = 1; i <= n; i++) last.set(datums[(i - 1) % datums.length]!, String(i));
    for (const [id, value] of last) {
      const row = await t.db('metric_data').where({ id }).first();
      expect(Number(row.value)).to.equal(Number(value));
    }
  });
});
