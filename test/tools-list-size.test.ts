import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { compactSchema } from '../tools/json-schema.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

// The goal is 48,000 characters; this holds what is reached so far, so it cannot grow back.
// 75,000 plus the 600 that search_notes needs.
const LIMIT = 75_600;

describe('the tools/list answer stays small', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let client: Client;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true' } });
    client = await mcpClient(server.url, fx.admin.pat);
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await t?.drop();
  });

  it(`lists every tool with its output schema in at most ${LIMIT.toLocaleString('en-US')} characters of JSON`, async () => {
    const listing = await client.listTools();
    expect(listing.tools.map((tool) => tool.name)).to.include('add_financing_rounds');
    expect(listing.tools.every((tool) => tool.outputSchema?.type === 'object')).to.equal(true);
    expect(JSON.stringify(listing).length).to.be.at.most(LIMIT);
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
      const out = compactSchema(
        {
          type: 'object',
          properties: {
            item: {
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
          },
        },
        'output',
      ) as { properties: { item: { properties: Record<string, unknown> } } };
      expect(out.properties.item.properties.kind).to.deep.equal({ enum: ['a', 'b'] });
      expect(out.properties.item.properties.cost).to.deep.equal({
        anyOf: [{ type: 'string' }, { type: 'number' }],
      });
    });
  });
});
