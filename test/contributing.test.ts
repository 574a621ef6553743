import { expect } from 'chai';
import { get } from '../rest/declare.ts';
import { openApiDocument } from '../rest/openapi.ts';
import { routes } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import { registry } from '../tools/registry.ts';
import { greetFirm } from './fixtures/greet-firm.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

// CONTRIBUTING.md's steps, taken in a test: one tool file, one registry line, one route line.
const tools = [...registry, greetFirm];
const table = [
  ...routes,
  get('/v1/greeting/', greetFirm, 'Greet the firm', { rename: { word: 'greeting' } }),
];

describe('adding a tool with a route as CONTRIBUTING.md says', function () {
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

  it('serves the new tool over REST, with its query parameter mapped', async () => {
    const res = await api(server.url, '/v1/greeting/?word=Hi', { token: fx.admin.rest });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ message: 'Hi, Alpha Partners' });
  });

  it('lists and calls the new tool over MCP', async () => {
    const client = await mcpClient(server.url, fx.admin.pat);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).to.include('greet_firm');
      const called = await client.callTool({ name: 'greet_firm', arguments: {} });
      expect(called.structuredContent).to.deep.equal({ message: 'Hello, Alpha Partners' });
    } finally {
      await client.close();
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
