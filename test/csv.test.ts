import { expect } from 'chai';
import { parseCsv } from '../cli/csv.ts';
import { toCsv } from '../rest/csv.ts';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';

/** The cells of the one data row of a CSV made from one item. */
function cellsOf(value: unknown): string[] {
  const [, row] = parseCsv(toCsv([{ value }]));
  return row!.fields;
}

describe('CSV written by the API', () => {
  it('escapes a cell that starts with -, a digit and a formula (OWASP)', () => {
    expect(cellsOf("-1+1+cmd|' /C calc'!A0")).to.deep.equal(["'-1+1+cmd|' /C calc'!A0"]);
    expect(cellsOf('-2e3')).to.deep.equal(["'-2e3"]);
    expect(cellsOf('-1-1')).to.deep.equal(["'-1-1"]);
  });

  it('escapes every cell that starts with =, +, -, @, tab or carriage return', () => {
    for (const text of ['=1+1', '+1', '-x', '@SUM(A1)', '\t=1', '\r=1', '+41 44 000 00 00']) {
      expect(cellsOf(text), JSON.stringify(text)).to.deep.equal([`'${text}`]);
    }
  });

  it('leaves plain decimal numbers, negative ones too, as they are', () => {
    for (const text of ['-12', '-12.50', '0', '1250.5', '42']) {
      expect(cellsOf(text), text).to.deep.equal([text]);
    }
    expect(cellsOf(-3)).to.deep.equal(['-3']);
  });

  it('quotes commas, quotes and line breaks so the row reads back the same', () => {
    const items = [{ a: 'x,y', b: 'say "hi"', c: 'two\r\nlines', d: null, e: { k: 1 } }];
    const [header, row] = parseCsv(toCsv(items));
    expect(header!.fields).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(row!.fields).to.deep.equal(['x,y', 'say "hi"', 'two\r\nlines', '', '{"k":1}']);
  });

  it('ends every record with CRLF', () => {
    expect(toCsv([{ a: 1 }, { a: 2 }])).to.equal('a\r\n1\r\n2\r\n');
  });
});

describe('CSV lists over REST', () => {
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

  it('serves a company named like a formula escaped in format=csv', async () => {
    const payload = "-1+1+cmd|' /C calc'!A0";
    await t.db('companies').where({ id: fx.companies.acme.id }).update({ name: payload });
    const res = await fetch(`${server.url}/v1/companies/?format=csv`, {
      headers: { Authorization: `Bearer ${fx.admin.rest}` },
    });
    expect(res.status).to.equal(200);
    const [header, ...rows] = parseCsv(await res.text());
    const name = header!.fields.indexOf('name');
    const names = rows.map((r) => r.fields[name]);
    expect(names).to.include(`'${payload}`);
    expect(names).not.to.include(payload);
  });
});
