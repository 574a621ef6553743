import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { routes } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

/** Paths served outside the route table. */
const SERVED_ELSEWHERE = ['/o/token/', '/openapi.json', '/docs'];

/** Every `/v1/…` path in a text, written with or without the leading slash, up to its query string. */
function v1Paths(text: string): string[] {
  const found = text.match(/(?<![\w.-])\/?v1\/[\w\-/{}:]*/g) ?? [];
  return [...new Set(found.map((p) => (p.startsWith('/') ? p : `/${p}`)))];
}

describe('get_excel_plugin_guide', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let mcp: Client;
  let guide: string;
  let paths: string[];

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
    mcp = await mcpClient(server.url, fx.admin.pat);
    const res = await mcp.callTool({ name: 'get_excel_plugin_guide', arguments: {} });
    expect(res.isError).to.not.equal(true);
    ({ guide, paths } = res.structuredContent as { guide: string; paths: string[] });
  });
  after(async () => {
    await mcp?.close();
    await server?.close();
    await t?.drop();
  });

  it('lists only paths that exist in the route table or are served beside it', () => {
    const table = new Set(routes.map((r) => r.path));
    expect(paths).to.not.be.empty;
    for (const path of paths) {
      expect(table.has(path) || SERVED_ELSEWHERE.includes(path), `${path} is not served`).to.equal(true);
    }
  });

  it('lists every /v1/ path its text mentions', () => {
    const mentioned = v1Paths(guide);
    expect(mentioned).to.include('/v1/companies/');
    expect(mentioned).to.include('/v1/metrics/');
    for (const path of mentioned) expect(paths, `${path} is mentioned but not listed`).to.include(path);
    for (const path of paths) expect(guide, `${path} is listed but not mentioned`).to.contain(path);
  });

  it('covers the token, Power Query paging, CSV export and the tools to use, at this server address', () => {
    expect(guide).to.contain(`${server.url}/o/token/`);
    expect(guide).to.contain('grant_type=client_credentials');
    expect(guide).to.contain('Web.Contents');
    expect(guide).to.contain('/v1/metrics/?company_id=');
    expect(guide).to.contain('page_size=100');
    expect(guide).to.match(/\[next\]/);
    expect(guide).to.contain('format=csv');
    expect(guide).to.contain('Accept: text/csv');
    for (const tool of ['search_companies', 'get_company_metrics', 'get_company_financial_summary']) {
      expect(guide).to.contain(tool);
    }
  });

  it('mentions paths that really answer', async () => {
    for (const path of paths.filter((p) => p.startsWith('/v1/') && !p.includes(':'))) {
      const query = path === '/v1/metrics/' ? `?company_id=${fx.companies.acme.id}` : '';
      const res = await api(server.url, `${path}${query}`, { token: fx.admin.rest });
      expect(res.status, path).to.equal(200);
    }
    expect((await api(server.url, '/openapi.json')).status).to.equal(200);
  });
});
