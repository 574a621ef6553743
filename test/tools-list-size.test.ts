import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { compactSchema } from '../tools/json-schema.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

// What a client pays before its first question, as an operator runs the service by default (no write tools).
const LIMIT = 48_000;
// With MCP_WRITE_TOOLS on, the write tools' schemas (many fields, one per item field) come on top.
const WITH_WRITES_LIMIT = 78_000;

describe('the tools/list answer stays small', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let client: Client;
  let writer: RunningServer;
  let writerClient: Client;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
    client = await mcpClient(server.url, fx.admin.pat);
    writer = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true' } });
    writerClient = await mcpClient(writer.url, fx.admin.pat);
  });
  after(async () => {
    await client?.close();
    await writerClient?.close();
    await server?.close();
    await writer?.close();
    await t?.drop();
  });

  it(`lists every tool with its output schema in at most ${LIMIT.toLocaleString('en-US')} characters of JSON`, async () => {
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).to.include('screen_companies');
    expect(listing.tools.every((tool) => tool.outputSchema?.type === 'object')).to.equal(true);
    expect(JSON.stringify(listing).length).to.be.at.most(LIMIT);
  });

  it(`lists the write tools too in at most ${WITH_WRITES_LIMIT.toLocaleString('en-US')} characters when MCP_WRITE_TOOLS is on`, async () => {
    const listing = await writerClient.listTools();
    expect(listing.tools.map((tool) => tool.name)).to.include('add_financing_rounds');
    expect(JSON.stringify(listing).length).to.be.at.most(WITH_WRITES_LIMIT);
  });

  it('shares a shape repeated inside one schema through $defs', async () => {
    const { tools } = await client.listTools();
    const performance = tools.find((tool) => tool.name === 'get_company_performance')!;
    const series = (
      performance.outputSchema!.properties as Record<string, { properties: Record<string, unknown> }>
    ).series!.properties;
    const refs = Object.values(series).map((s) => (s as { $ref?: string }).$ref);
    expect(new Set(refs).size).to.equal(1);
    expect(refs[0]).to.match(/^#\/\$defs\//);
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

    it('keeps each description beside the reference when one shape is repeated under different descriptions', () => {
      const out = compactSchema(
        {
          type: 'object',
          properties: { x: { ...shape, description: 'first' }, y: { ...shape, description: 'second' } },
        },
        'input',
      ) as {
        properties: Record<string, { $ref: string; description: string }>;
        $defs: Record<string, unknown>;
      };
      expect(out.properties.x).to.deep.equal({ $ref: '#/$defs/x', description: 'first' });
      expect(out.properties.y).to.deep.equal({ $ref: '#/$defs/x', description: 'second' });
      expect(out.$defs.x).to.deep.equal(shape);
    });

    it('lists a result with typed top-level fields, second-level fields by name and deeper objects as plain objects', () => {
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
      expect(out.properties.results.items.properties).to.deep.equal({ id: {}, inner: { type: 'object' } });
      expect(out.properties.when).to.deep.equal({ type: 'string' });
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
        'output',
      ) as { properties: Record<string, unknown> };
      expect(out.properties.s).to.deep.equal({ type: ['string', 'null'], enum: ['a', 'b', null] });
    });

    it('merges the variants of a result union into one object that accepts every variant', () => {
      // At the top level, where a result's fields keep their types.
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
      expect(out.properties.kind).to.deep.equal({ enum: ['a', 'b'] });
      expect(out.properties.cost).to.deep.equal({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    });
  });
});
