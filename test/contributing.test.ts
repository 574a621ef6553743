import { expect } from 'chai';
import { openApiDocument } from '../rest/openapi.ts';
import { routes, routesOf } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import { domains, registry, toolTable } from '../tools/registry.ts';
import { greetFirm } from './fixtures/greet-firm.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

// CONTRIBUTING.md's steps, taken in a test: the tool's one file (test/fixtures/greet-firm.ts, its
// route declared in it) and its one registry line, here the `firm` domain with the tool added.
const tools = toolTable({ ...domains, firm: [...domains.firm, greetFirm] });
const table = routesOf(tools);

describe('adding a read tool with a route as CONTRIBUTING.md says', function () {
  this.timeout(30000);
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db, { tools, routes: table });
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  it('derives the route table from the tool table: every route of the registry, and the new one', () => {
    expect(registry.map((tool) => tool.name)).not.to.include('greet_firm');
    expect(table.filter((route) => route.tool !== greetFirm)).to.deep.equal(routes);
    const added = table.find((route) => route.tool === greetFirm);
    expect(added).to.include({ method: 'GET', path: '/v1/greeting/', envelope: 'plain' });
  });

  it('serves the new route through the HTTP server, with its query parameter mapped', async () => {
    const res = await api(server.url, '/v1/greeting/?word=Hi', { token: fx.admin.rest });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ message: 'Hi, Alpha Partners' });
  });

  it('lists the new tool over MCP in its domain toolset only, and calls it', async () => {
    const inFirm = await mcpClient(server.url, fx.admin.pat, '?toolsets=firm');
    const inFunds = await mcpClient(server.url, fx.admin.pat, '?toolsets=funds');
    try {
      expect((await inFirm.listTools()).tools.map((tool) => tool.name)).to.include('greet_firm');
      expect((await inFunds.listTools()).tools.map((tool) => tool.name)).not.to.include('greet_firm');
      const called = await inFirm.callTool({ name: 'greet_firm', arguments: {} });
      expect(called.structuredContent).to.deep.equal({ message: 'Hello, Alpha Partners' });
    } finally {
      await inFirm.close();
      await inFunds.close();
    }
  });

  it('documents the new route in the generated OpenAPI document', () => {
    const doc = openApiDocument(table, 'http://127.0.0.1:8000') as {
      paths: Record<string, { get?: { summary?: string; parameters?: { name: string }[] } }>;
    };
    const operation = doc.paths['/v1/greeting/']?.get;
    expect(operation?.summary).to.equal('Greet the firm');
    expect(operation?.parameters?.map((p) => p.name)).to.include('word');
  });
});

describe('the route table derived from the registry', () => {
  const routed = (name: string, ...paths: string[]) => ({
    ...greetFirm,
    name,
    routes: paths.map((path) => ({ method: 'GET' as const, path, summary: name })),
  });

  it('keeps the registry order, but puts a route before an earlier one that would take its requests', () => {
    const table = routesOf([
      routed('get_thing', '/v1/things/:thing_id/'),
      routed('list_things', '/v1/things/'),
      routed('search_things', '/v1/things/search/'),
      routed('get_part', '/v1/things/:thing_id/parts/:part_id/', '/v1/things/:thing_id/parts/latest/'),
    ]);
    expect(table.map((route) => route.path)).to.deep.equal([
      '/v1/things/search/',
      '/v1/things/:thing_id/',
      '/v1/things/',
      '/v1/things/:thing_id/parts/latest/',
      '/v1/things/:thing_id/parts/:part_id/',
    ]);
  });

  it('has no route of the registry after one that would take its requests', () => {
    const paramOrSame = (a: string, b: string) => a === b || a.startsWith(':') || b.startsWith(':');
    for (const [i, earlier] of routes.entries()) {
      for (const later of routes.slice(i + 1)) {
        const [a, b] = [earlier.path.split('/'), later.path.split('/')];
        const taken =
          earlier.method === later.method &&
          a.length === b.length &&
          a.every((segment, k) => paramOrSame(segment, b[k]!)) &&
          a.some((segment, k) => segment.startsWith(':') && !b[k]!.startsWith(':'));
        expect(taken, `${earlier.method} ${earlier.path} before ${later.path}`).to.equal(false);
      }
    }
  });
});
