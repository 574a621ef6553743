import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

// Tools other parts of the same issue add; a prompt may already tell the model to call them.
const ARRIVING = ['screen_companies', 'get_portfolio_overview', 'get_fund_performance'];

describe('MCP prompts', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let client: Client;
  const known = new Set([...mcpTools({ writeTools: true }).map((tool) => tool.name), ...ARRIVING]);

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
    client = await mcpClient(server.url, fx.viewer.pat);
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await t?.drop();
  });

  it('lists the quarterly review, the tear sheet and the chase of late requests, with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).to.include.members([
      'quarterly_portfolio_review',
      'company_tear_sheet',
      'chase_late_information_requests',
    ]);
    for (const prompt of prompts) expect(prompt.description, prompt.name).to.be.a('string').and.not.empty;
    const tearSheet = prompts.find((p) => p.name === 'company_tear_sheet')!;
    expect(tearSheet.arguments).to.deep.include({
      name: 'company',
      description: 'The company name or id.',
      required: true,
    });
  });

  it('expands each prompt into ordered steps that call tools which exist', async () => {
    const { prompts } = await client.listPrompts();
    for (const prompt of prompts) {
      const required = Object.fromEntries(
        (prompt.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'Acme']),
      );
      const got = await client.getPrompt({ name: prompt.name, arguments: required });
      const text = got.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
      expect(got.messages[0]!.role).to.equal('user');
      expect(text, prompt.name).to.match(/^1\. /m);
      expect(text, prompt.name).to.match(/^3\. /m);
      const named = [
        ...text.matchAll(/\b(?:get|list|search|update|add|screen|remind|send|create)_[a-z_]+\b/g),
      ].map((m) => m[0]);
      expect(named.length, prompt.name).to.be.at.least(3);
      for (const name of named) expect(known.has(name), `${prompt.name} names ${name}`).to.equal(true);
    }
  });

  it('puts the arguments into the steps', async () => {
    const got = await client.getPrompt({
      name: 'quarterly_portfolio_review',
      arguments: { quarter: '2026-Q1', fund_id: 'fund-9' },
    });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(text).to.contain('2026-Q1');
    expect(text).to.contain('get_portfolio_overview with fund_id=fund-9');
    const first = text.indexOf('get_portfolio_overview');
    expect(first).to.be.lessThan(text.indexOf('screen_companies'));
  });

  it('refuses a missing required argument and an unknown prompt with one clear message', async () => {
    const missing = await client
      .getPrompt({ name: 'company_tear_sheet', arguments: {} })
      .catch((e: Error) => e);
    expect((missing as Error).message).to.equal('MCP error -32602: prompt company_tear_sheet needs company');
    const unknown = await client.getPrompt({ name: 'nope' }).catch((e: Error) => e);
    expect((unknown as Error).message).to.match(/^MCP error -32602: unknown prompt nope; the prompts are /);
  });
});
