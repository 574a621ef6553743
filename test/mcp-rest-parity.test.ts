import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { DEMO, seedDemo } from '../db/seeds/demo.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

for (const dialect of dialects) {
  describe(`MCP list tools count what the REST lists count (${dialect.name}) @db`, function () {
    this.timeout(60000);
    let t: TestDb;
    let server: RunningServer;
    let mcp: Client;
    let token: string;
    let companyId: string;

    before(async () => {
      t = await dialect.open();
      await seedDemo(t.db);
      server = await startTestServer(t.db);
      const user = (await server.repos.users.getByEmail(DEMO.email))!;
      token = await issueToken(server.repos, user);
      mcp = await mcpClient(server.url, token);
      const companies = await api(server.url, '/v1/companies/?name=a', { token });
      companyId = companies.body.results[0].id;
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    const cases: [string, (id: string) => Record<string, unknown>, (id: string) => string][] = [
      ['list_companies', () => ({ name: 'a' }), () => '/v1/companies/?name=a'],
      ['list_budgets', (id) => ({ company_id: id }), (id) => `/v1/budgets/?company_id=${id}`],
      ['list_budgets', () => ({}), () => '/v1/budgets/'],
      ['list_documents', () => ({ parse_state: 'completed' }), () => '/v1/documents/?parse_state=completed'],
      ['list_notes', (id) => ({ company_id: id }), (id) => `/v1/notes/?company_id=${id}`],
      ['get_custom_columns', (id) => ({ company_id: id }), (id) => `/v1/custom-columns/?company_id=${id}`],
      ['get_custom_column_options', () => ({}), () => '/v1/custom-columns/options/'],
      ['list_information_requests', () => ({}), () => '/v1/information-requests/'],
      [
        'list_information_reports',
        (id) => ({ company_id: id }),
        (id) => `/v1/information-reports/?company_id=${id}`,
      ],
      ['list_funds', () => ({}), () => '/v1/funds/'],
      ['list_users', () => ({}), () => '/v1/users/'],
      ['get_metrics_options', () => ({ is_standard: true }), () => '/v1/metrics/options/?is_standard=true'],
      [
        'get_company_metrics',
        (id) => ({ company_ids: [id], from_date: '2025-01-01', to_date: '2025-12-31', category: 'revenue' }),
        (id) => `/v1/metrics/?company_id=${id}&from=2025-01-01&to=2025-12-31&category=revenue`,
      ],
    ];

    for (const [tool, args, path] of cases) {
      it(`${tool} ${JSON.stringify(args('ID'))}`, async () => {
        const rest = await api(server.url, path(companyId), { token });
        expect(rest.status).to.equal(200);
        const result = await mcp.callTool({ name: tool, arguments: args(companyId) });
        expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
        const count = (result.structuredContent as { count: number }).count;
        expect(count).to.equal(rest.body.count);
        expect(count).to.be.greaterThan(0);
      });
    }
  });
}
