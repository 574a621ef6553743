import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { compactSchema } from '../mcp/json-schema.ts';
import type { RunningServer } from '../server/http.ts';
import { domains, toolByName } from '../tools/registry.ts';
import { READ_TOOLSETS } from '../tools/toolsets.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

// What a client pays before its first question, in every configuration an operator or client can choose
// one toolset at a time (and the default, every read tool).
const LIMIT = 48_000;
// Cursor sends a model only the first 40 tools of a server.
const MAX_TOOLS = 40;

const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 't', version: '1' },
};

describe('the tools/list answer stays small', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let writer: RunningServer;
  const clients: Client[] = [];
  const listing = async (on: RunningServer, query = '') => {
    const client = await mcpClient(on.url, fx.admin.pat, query);
    clients.push(client);
    return client.listTools();
  };
  const withinLimits = (answer: { tools: unknown[] }, label: string) => {
    expect(answer.tools.length, `${label}: tools`).to.be.at.most(MAX_TOOLS);
    expect(JSON.stringify(answer).length, `${label}: characters`).to.be.at.most(LIMIT);
  };

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
    writer = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true' } });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await writer?.close();
    await t?.drop();
  });

  it(`lists every read tool with its output schema by default, within ${MAX_TOOLS} tools and ${LIMIT.toLocaleString('en-US')} characters`, async () => {
    const answer = await listing(server);
    const names = answer.tools.map((tool) => tool.name);
    expect(names).to.have.members(names.filter((name) => !toolByName(name)?.write));
    expect(names).to.include('screen_companies');
    expect(answer.tools.every((tool) => tool.outputSchema?.type === 'object')).to.equal(true);
    withinLimits(answer, 'default');
  });

  it("states the result fields every list shares once, in the server's instructions, and not on each listed tool", async () => {
    const client = await mcpClient(server.url, fx.admin.pat);
    clients.push(client);
    const { tools } = await client.listTools();
    // A list of results with page and per_page inputs is a page: its count, page, per_page and has_more go unlisted.
    const paged = tools.filter(
      (tool) =>
        ['page', 'per_page'].every((field) => field in (tool.inputSchema.properties ?? {})) &&
        'results' in (tool.outputSchema?.properties ?? {}),
    );
    expect(paged.map((tool) => tool.name)).to.include.members(['list_companies', 'screen_companies']);
    for (const tool of paged)
      expect(tool.outputSchema?.properties, tool.name).to.not.have.any.keys('count', 'per_page', 'has_more');
    const listed = JSON.stringify(tools);
    for (const field of [
      'same_in_every_result',
      'truncated',
      'has_more',
      'list_companies or search_companies',
    ]) {
      if (field !== 'has_more') expect(listed).not.to.include(field);
      expect(client.getInstructions()).to.include(field);
    }
    // The results themselves keep those fields, and the SDK client checks each against its listed schema.
    const page = await client.callTool({ name: 'list_companies', arguments: { per_page: 1 } });
    expect(page.structuredContent).to.include.keys('count', 'page', 'per_page', 'has_more');
  });

  it('lists the read tools by default when MCP_WRITE_TOOLS is on, and the write tools in the writes toolset', async () => {
    const reads = await listing(writer);
    expect(reads.tools.some((tool) => toolByName(tool.name)?.write)).to.equal(false);
    withinLimits(reads, 'writes on');
    const writes = await listing(writer, '?toolsets=writes');
    expect(writes.tools.map((tool) => tool.name)).to.include('add_financing_rounds');
    expect(writes.tools.every((tool) => toolByName(tool.name)?.write)).to.equal(true);
    withinLimits(writes, 'writes toolset');
  });

  for (const toolset of READ_TOOLSETS) {
    it(`lists the ${toolset} toolset's read tools only, within the limits`, async () => {
      const answer = await listing(writer, `?toolsets=${toolset}`);
      const expected = domains[toolset]
        .filter((tool) => !tool.write && tool.mcp !== false)
        .map((tool) => tool.name);
      expect(answer.tools.map((tool) => tool.name)).to.deep.equal(expected);
      withinLimits(answer, toolset);
    });
  }

  it('lists two toolsets together and ignores case and spaces in their names', async () => {
    const answer = await listing(writer, '?toolsets=Notes,%20writes');
    const names = answer.tools.map((tool) => tool.name);
    expect(names).to.include.members(['list_notes', 'search_notes', 'create_notes', 'add_securities']);
    expect(names).not.to.include('list_companies');
  });

  it('refuses an unknown toolset with a 400 naming the toolsets parameter', async () => {
    const res = await fetch(`${server.url}/mcp?toolsets=companies,portfolio`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${fx.admin.pat}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE }),
    });
    expect(res.status).to.equal(400);
    const problem = (await res.json()) as { detail: string; errors: { field: string }[] };
    expect(problem.errors[0]!.field).to.equal('toolsets');
    expect(problem.detail).to.include('unknown toolset portfolio');
  });

  it('refuses the writes toolset with a 400 when the server runs without write tools', async () => {
    const res = await fetch(`${server.url}/mcp?toolsets=writes`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${fx.admin.pat}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE }),
    });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { detail: string }).detail).to.include('MCP_WRITE_TOOLS');
  });

  it('does not run a tool outside the chosen toolsets', async () => {
    const client = await mcpClient(server.url, fx.admin.pat, '?toolsets=notes');
    clients.push(client);
    const failure = await client.callTool({ name: 'list_companies', arguments: {} }).then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).to.match(/unknown tool list_companies/);
  });

  describe('compactSchema', () => {
    const shape = {
      type: 'object',
      properties: {
        alpha: { type: 'string' },
        beta: { type: 'integer' },
        gamma: { type: 'boolean' },
        delta: { type: 'string' },
      },
    };

    it('writes an input out flat: a repeated shape stays in place, and every object is closed', () => {
      const out = compactSchema(
        {
          type: 'object',
          properties: { x: { ...shape, description: 'first' }, y: { ...shape, description: 'second' } },
        },
        'input',
      );
      expect(out).to.deep.equal({
        type: 'object',
        properties: {
          x: { ...shape, description: 'first', additionalProperties: false },
          y: { ...shape, description: 'second', additionalProperties: false },
        },
        additionalProperties: false,
      });
    });

    it('lists an optional choice of numbers as one enum with null, not as nested anyOf', () => {
      const out = compactSchema(
        {
          type: 'object',
          properties: {
            days: {
              description: 'Day count.',
              anyOf: [
                {
                  anyOf: [
                    { type: 'number', const: 360 },
                    { type: 'number', const: 365 },
                  ],
                },
                { type: 'null' },
              ],
            },
          },
        },
        'input',
      ) as { properties: Record<string, unknown> };
      expect(out.properties.days).to.deep.equal({
        description: 'Day count.',
        type: ['integer', 'null'],
        enum: [360, 365, null],
      });
    });

    it('refuses to list an input union that has no flat form', () => {
      const union = {
        type: 'object',
        properties: {
          either: {
            anyOf: [
              { type: 'string', minLength: 3 },
              { type: 'object', properties: { a: { type: 'string' } } },
            ],
          },
        },
      };
      expect(() => compactSchema(union, 'input')).to.throw(/cannot be listed as one flat schema/);
    });

    it('lists a result by the names of its own fields, saying which hold an object or a list, and nothing deeper', () => {
      const deep = {
        type: 'object',
        properties: { leaf: { type: 'object', properties: { x: { type: 'string' } } } },
      };
      const out = compactSchema(
        {
          type: 'object',
          properties: {
            results: {
              type: 'array',
              items: { type: 'object', properties: { id: { type: 'string' }, inner: deep } },
            },
            when: { type: 'string', format: 'date-time' },
          },
        },
        'output',
      ) as { properties: { results: { items: { properties: Record<string, unknown> } }; when: unknown } };
      expect(out.properties.results).to.deep.equal({ type: 'array', items: { type: 'object' } });
      expect(out.properties.when).to.deep.equal({});
    });

    it('lists a currency input as an ISO 4217 code rather than every code', () => {
      const codes = ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'SEK', 'NOK', 'DKK', 'CAD'];
      const out = compactSchema(
        {
          type: 'object',
          properties: {
            currency: {
              description: 'Currency.',
              anyOf: [{ type: 'string', enum: codes }, { type: 'null' }],
            },
          },
        },
        'input',
      ) as { properties: Record<string, unknown> };
      expect(out.properties.currency).to.deep.equal({
        description: 'Currency. ISO 4217 code.',
        type: ['string', 'null'],
      });
    });

    it('keeps null allowed when it folds a nullable enum into one type list', () => {
      const out = compactSchema(
        {
          type: 'object',
          properties: { s: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] } },
        },
        'input',
      ) as { properties: Record<string, unknown> };
      expect(out.properties.s).to.deep.equal({ type: ['string', 'null'], enum: ['a', 'b', null] });
    });

    it('merges the variants of a result union into one object that accepts every variant', () => {
      const out = compactSchema(
        {
          oneOf: [
            {
              type: 'object',
              properties: { kind: { type: 'string', const: 'a' }, cost: { type: 'string' } },
            },
            {
              type: 'object',
              properties: { kind: { type: 'string', const: 'b' }, cost: { type: 'number' } },
            },
          ],
        },
        'output',
      ) as { properties: Record<string, unknown> };
      expect(out).to.deep.include({ type: 'object' });
      expect(Object.keys(out.properties)).to.deep.equal(['kind', 'cost']);
    });
  });
});
