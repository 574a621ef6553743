import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { suggestCategory } from '../core/categories.ts';
import { mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { publicOrigins } from '../server/mcp-origin.ts';
import { insertDatum } from './helpers/datums.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { EVERY_TOOLSET, startTestServer } from './helpers/server.ts';

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
}

const PUBLIC_URL = 'http://localhost:8123';

/** Words shaped like tool names (get_…, list_…); field names such as company_id do not match. */
const toolLike = /\b(?:get|list|search|update|add|screen)_[a-z_]+\b/g;

describe('errors a model can act on', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let client: Client;
  const listed = new Set(mcpTools({ writeTools: true }).map((tool) => tool.name));

  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args })) as unknown as ToolAnswer;
  const text = (answer: ToolAnswer) => answer.content.map((c) => c.text).join('\n');

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    await insertDatum(t.db, {
      firmId: fx.firmA.id,
      companyId: fx.companies.acme.id,
      category: 'net_burn',
      value: '1000.00',
    });
    server = await startTestServer(t.db, {
      // The first test calls every tool with every kind of wrong input: more than a minute's limit.
      env: {
        MCP_WRITE_TOOLS: 'true',
        MCP_TOOLSETS: EVERY_TOOLSET,
        PUBLIC_URL,
        RATE_LIMIT_PER_MINUTE: '5000',
      },
    });
    client = await mcpClient(server.url, fx.editor.pat);
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await t?.drop();
  });

  it('names only tools that tools/list has, on every error path the inputs reach', async () => {
    const { tools } = await client.listTools();
    const wrong: Record<string, unknown> = {
      string: 12345,
      integer: 'many',
      number: 'many',
      boolean: 'yes',
      array: 'not-a-list',
      object: 'not-an-object',
    };
    const messages: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string | string[] }>;
      const attempts: Record<string, unknown>[] = [{}, { page: 999 }];
      for (const [field, schema] of Object.entries(properties)) {
        const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
        if (type && type in wrong) attempts.push({ [field]: wrong[type] });
        if (/_id$/.test(field)) attempts.push({ [field]: 'no-such-id' });
        if (/_ids$/.test(field)) attempts.push({ [field]: ['no-such-id'] });
      }
      attempts.push({
        company_id: 'no-such-company',
        category: 'burn',
        datum_id: 'no-such-datum',
        value: '1',
      });
      for (const args of attempts) {
        try {
          const answer = await call(tool.name, args);
          if (answer.isError) messages.push(text(answer));
        } catch (err) {
          messages.push((err as Error).message);
        }
      }
    }
    try {
      await call('no_such_tool', {});
    } catch (err) {
      messages.push((err as Error).message);
    }
    expect(messages.length).to.be.greaterThan(50);
    for (const message of messages) {
      for (const [name] of message.matchAll(toolLike)) expect(listed.has(name), message).to.equal(true);
    }
  });

  it('does not repeat the JSON-RPC code prefix in an error message', async () => {
    const err = await call('no_such_tool', {}).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/^MCP error -32602: unknown tool no_such_tool/);
    expect(err?.message.match(/MCP error/g)).to.have.length(1);
  });

  it('says a validation problem once', async () => {
    const answer = await call('list_companies', { page: 0 });
    expect(answer.isError).to.equal(true);
    const problem = /invalid page: (.+?)(?:\.|$)/.exec(text(answer))![1]!;
    expect(text(answer).split(problem)).to.have.length(2);
  });

  it('matches a category case-insensitively', async () => {
    const answer = await call('get_company_metrics', {
      company_ids: [fx.companies.acme.id],
      category: 'Net_Burn',
    });
    expect(answer.isError ?? false, text(answer)).to.equal(false);
    const series = answer.structuredContent!.series as { category: string; rows: unknown[] }[];
    expect(series.map((s) => [s.category, s.rows.length])).to.deep.equal([['net_burn', 1]]);
  });

  it('suggests a category by meaning as well as spelling (burn → net_burn, mrr → arr)', async () => {
    for (const [asked, meant] of [
      ['burn', 'net_burn'],
      ['MRR', 'arr'],
      ['revenu', 'revenue'],
    ]) {
      const answer = await call('get_company_metrics', {
        company_ids: [fx.companies.acme.id],
        category: asked,
      });
      expect(answer.isError).to.equal(true);
      expect(text(answer)).to.contain(`did you mean "${meant}"?`);
    }
    expect(suggestCategory('cash', ['cash_in_bank', 'cash_receipts'])).to.equal('cash_in_bank');
  });

  it('clamps per_page above 100 to 100 with a note, as REST does', async () => {
    const answer = await call('list_companies', { per_page: 500 });
    expect(answer.isError ?? false, text(answer)).to.equal(false);
    expect(answer.structuredContent!.per_page).to.equal(100);
    expect(text(answer)).to.contain('per_page 500 is above the maximum of 100');
  });

  it('names the sectors and cities to search when a search matches nothing', async () => {
    const answer = await call('search_companies', { city: 'Atlantis' });
    const out = answer.structuredContent as {
      count: number;
      valid_values: { sectors: string[]; cities: string[] };
    };
    expect(out.count).to.equal(0);
    expect(out.valid_values.cities).to.include.members(['Boston', 'Berlin']);
    expect(out.valid_values.sectors).to.include('SaaS');
    const found = (await call('search_companies', { city: 'Boston' })).structuredContent!;
    expect(found).to.not.have.property('valid_values');
  });

  describe('loopback origins', () => {
    const post = (origin: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${fx.admin.pat}`,
          Origin: origin,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });

    it('accepts localhost and 127.0.0.1 alike when PUBLIC_URL is a loopback address', async () => {
      expect((await post('http://localhost:8123')).status).to.equal(200);
      expect((await post('http://127.0.0.1:8123')).status).to.equal(200);
      expect((await post('http://127.0.0.1:9999')).status).to.equal(403);
    });

    it('keeps a public PUBLIC_URL to its own origin', () => {
      expect(publicOrigins('https://portfolio.example.com/base')).to.deep.equal([
        'https://portfolio.example.com',
      ]);
      expect(publicOrigins('http://127.0.0.1:3000')).to.include.members([
        'http://localhost:3000',
        'http://127.0.0.1:3000',
      ]);
    });
  });
});
