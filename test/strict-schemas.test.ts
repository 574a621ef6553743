import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type MCPServer, mcpToFunctionTool } from '@openai/agents-core';
import { expect } from 'chai';
import { describeTool, mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { DEFAULT_TOOLSETS } from '../tools/toolsets.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

/** Every object in a schema, with where it is. */
function objects(node: unknown, path = '$'): { path: string; node: Record<string, unknown> }[] {
  if (Array.isArray(node)) return node.flatMap((child, i) => objects(child, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  return [
    { path, node: record },
    ...Object.entries(record)
      .filter(([key]) => key !== 'default' && key !== 'enum' && key !== 'const')
      .flatMap(([key, child]) => objects(child, `${path}.${key}`)),
  ];
}

const isObjectSchema = (node: Record<string, unknown>) =>
  node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));

// A stand-in for the connection: conversion reads only the server's name and options.
const server = { name: 'portfolio' } as unknown as MCPServer;

const configurations: [string, McpTool[]][] = [
  ['the default listing', mcpTools({ writeTools: false, toolsets: DEFAULT_TOOLSETS }).map(describeTool)],
  ['every tool, write tools on', mcpTools({ writeTools: true }).map(describeTool)],
];

describe('every input schema is strict as listed', () => {
  for (const [label, tools] of configurations) {
    describe(label, () => {
      it("converts to a strict function tool with the OpenAI Agents SDK's converter, never falling back", () => {
        const fellBack = tools.filter((tool) => {
          const converted = mcpToFunctionTool(tool as never, server, true) as { strict: boolean };
          return converted.strict !== true;
        });
        expect(fellBack.map((tool) => tool.name)).to.deep.equal([]);
      });

      it('closes every object with additionalProperties: false', () => {
        const open = tools.flatMap((tool) =>
          objects(tool.inputSchema)
            .filter(({ node }) => isObjectSchema(node) && node.additionalProperties !== false)
            .map(({ path }) => `${tool.name} ${path}`),
        );
        expect(open).to.deep.equal([]);
      });

      it('uses no $ref, $defs, anyOf, oneOf or allOf, which some clients drop', () => {
        const nested = tools.flatMap((tool) =>
          objects(tool.inputSchema).flatMap(({ path, node }) =>
            ['$ref', '$defs', 'anyOf', 'oneOf', 'allOf']
              .filter((key) => key in node)
              .map((key) => `${tool.name} ${path}.${key}`),
          ),
        );
        expect(nested).to.deep.equal([]);
      });
    });
  }

  describe('over MCP', () => {
    let t: TestDb;
    let fx: Fixture;
    let running: RunningServer;
    let client: Client;
    before(async () => {
      t = await sqliteTestDb();
      fx = await buildFixture(t.db);
      running = await startTestServer(t.db);
      client = await mcpClient(running.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await running?.close();
      await t?.drop();
    });

    const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
      (result.content as { type: string; text: string }[]).map((c) => c.text).join(' ');

    it('refuses an unknown argument, naming it', async () => {
      const result = await client.callTool({ name: 'list_notes', arguments: { per_page: 5, colour: 'red' } });
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.match(/colour/);
    });

    it('refuses an unknown field inside a nested object, naming its path', async () => {
      const result = await client.callTool({
        name: 'get_financing_events',
        arguments: { co_investors: [{ name: 'Acme', stake: 3 }] },
      });
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.match(/co_investors\[0\]\.stake/);
    });

    it('still runs a call with only known arguments', async () => {
      const result = await client.callTool({ name: 'list_notes', arguments: { per_page: 5 } });
      expect(result.isError).to.not.equal(true);
    });
  });

  it("keeps add_securities' allowed days_convention values where a client reads them", () => {
    const tool = describeTool(mcpTools({ writeTools: true }).find((t) => t.name === 'add_securities')!);
    const convertibles = (
      tool.inputSchema.properties as Record<string, { items: { properties: Record<string, unknown> } }>
    ).convertibles!;
    expect(convertibles.items.properties.days_convention).to.deep.include({ enum: [360, 365, null] });
  });
});
