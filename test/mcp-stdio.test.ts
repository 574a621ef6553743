import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { seedDemo } from '../db/seeds/demo.ts';
import { mcpTools } from '../mcp/server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';

const cli = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));

async function stdioClient(url: string, email: string): Promise<Client> {
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--stdio', '--user', email],
      env: { ...(process.env as Record<string, string>), DATABASE_URL: url, LOG_LEVEL: 'silent' },
      stderr: 'ignore',
    }),
  );
  return client;
}

describe('portfolio mcp --stdio', function () {
  this.timeout(60000);
  let t: TestDb;

  before(async () => {
    t = await sqliteTestDb();
    await seedDemo(t.db);
  });
  after(async () => t?.drop());

  it('serves the same tools over stdio as the signed-in user', async () => {
    const client = await stdioClient(t.url, 'demo@example.com');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).to.deep.equal(
        mcpTools({ writeTools: false })
          .map((tool) => tool.name)
          .sort(),
      );
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect((who.structuredContent as { email: string }).email).to.equal('demo@example.com');
      const listed = await client.callTool({ name: 'list_companies', arguments: { per_page: 5 } });
      const demoCount = await t
        .db('companies')
        .join('firms', 'firms.id', 'companies.firm_id')
        .where('firms.slug', 'demo')
        .count({ n: '*' })
        .first();
      expect((listed.structuredContent as { count: number }).count).to.equal(Number(demoCount?.n));
    } finally {
      await client.close();
    }
  });

  it('limits a restricted user to their companies', async () => {
    const client = await stdioClient(t.url, 'analyst@example.com');
    try {
      const listed = await client.callTool({ name: 'list_companies', arguments: {} });
      expect((listed.structuredContent as { count: number }).count).to.equal(3);
    } finally {
      await client.close();
    }
  });
});
