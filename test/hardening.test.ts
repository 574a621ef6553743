import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { toCsv } from '../rest/csv.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));

describe('hardening of inputs and outputs', () => {
  describe('CSV formula injection (OWASP rule)', () => {
    const cell = (value: string) => toCsv([{ v: value }]).split('\r\n')[1];

    for (const text of ["-1+1+cmd|' /C calc'!A0", '=1+1', '+1', '@SUM(A1)', '\tx', '-2-3', '-1e5', '+5.0']) {
      it(`escapes a cell that starts a formula: ${JSON.stringify(text)}`, () => {
        expect(cell(text)!.replace(/^"|"$/g, '')).to.match(/^'/);
      });
    }

    for (const text of ['-12.5', '42', '0.5', '-7', 'Acme']) {
      it(`leaves ${JSON.stringify(text)} as it is (a plain decimal number in full, or no formula start)`, () => {
        expect(cell(text)).to.equal(text);
      });
    }
  });

  describe('REST and MCP over a real server', () => {
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

    it('escapes a company name that starts with "-" and a digit in the CSV export', async () => {
      await t.db('companies').where({ id: fx.companies.beta.id }).update({ name: "-1+1+cmd|' /C calc'!A0" });
      const res = await fetch(`${server.url}/v1/companies/?format=csv`, {
        headers: { Authorization: `Bearer ${fx.viewer.rest}` },
      });
      const text = await res.text();
      expect(text).to.include("'-1+1+cmd|' /C calc'!A0");
      expect(text).not.to.match(/(^|,)-1\+1\+cmd/m);
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
        // The last day of month m after January 1900.
        const date = new Date(Date.UTC(1900, m + 1, 0)).toISOString().slice(0, 10);
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

for (const dialect of dialects) {
  describe(`an idempotent write and its stored response commit together (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      // Storing the response for the key "store-fails" fails, as a crash between the write and the
      // storing of its response would leave it.
      if (dialect.name === 'sqlite') {
        await t.db.raw(`create trigger fail_store before update on idempotency_keys
          when new.key = 'store-fails' and new.status_code is not null
          begin select raise(abort, 'storage failed'); end`);
      } else {
        await t.db.raw(`create function fail_store() returns trigger language plpgsql as $$
          begin raise exception 'storage failed'; end $$`);
        await t.db.raw(`create trigger fail_store before update on idempotency_keys for each row
          when (new.key = 'store-fails' and new.status_code is not null) execute function fail_store()`);
      }
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    const patch = (id: string, key: string, value: string) =>
      api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body: { value, comments: [{ content: 'checked' }] },
        headers: { 'Idempotency-Key': key },
      });

    it('leaves no write behind when its response cannot be stored, so a retry writes exactly once', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '10.00',
      });
      const failed = await patch(id, 'store-fails', '20');
      expect(failed.status).to.be.at.least(500);
      const row = await t.db('metric_data').where({ id }).first();
      expect(Number(row.value)).to.equal(10);
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(0);

      const first = await patch(id, 'stored', '20');
      const retry = await patch(id, 'stored', '20');
      expect(first.status).to.equal(200);
      expect(retry.status).to.equal(200);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect(retry.body).to.deep.equal(first.body);
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(1);
    });
  });
}
