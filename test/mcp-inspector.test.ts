import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { VIEWS } from '../tools/views.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';
import { ensureViewsBuilt } from './helpers/views.ts';

const run = promisify(execFile);
const inspector = fileURLToPath(new URL('../node_modules/.bin/mcp-inspector', import.meta.url));

describe('the MCP Inspector CLI against the running server', function () {
  this.timeout(60000);
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;

  before(async () => {
    await ensureViewsBuilt();
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(
      inspector,
      [
        '--cli',
        `${server.url}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${fx.admin.pat}`,
        ...args,
      ],
      { timeout: 45000 },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it('lists exactly the read tools', async () => {
    const listed = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).to.deep.equal(
      mcpTools({ writeTools: false })
        .map((tool) => tool.name)
        .sort(),
    );
    // The registry's read tools, whatever their number; an empty listing never passes.
    expect(listed.tools).to.not.be.empty;
    // Each tool once; which tools is the registry's business (above), so a new tool needs no edit here.
    expect(new Set(listed.tools.map((tool) => tool.name)).size).to.equal(listed.tools.length);
  });

  it('calls a tool', async () => {
    const called = (await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'list_companies',
      '--tool-arg',
      'per_page=2',
    )) as {
      structuredContent: { count: number; results: unknown[] };
    };
    expect(called.structuredContent.count).to.equal(3);
    expect(called.structuredContent.results).to.have.length(2);
  });

  it('lists the MCP Apps views and reads one as MCP Apps HTML', async () => {
    const listed = (await inspect('--method', 'resources/list')) as {
      resources: { uri: string; mimeType: string }[];
    };
    expect(listed.resources.map((r) => r.uri).sort()).to.deep.equal(
      Object.values(VIEWS)
        .map((v) => v.uri)
        .sort(),
    );
    const read = (await inspect('--method', 'resources/read', '--uri', VIEWS.fund.uri)) as {
      contents: { uri: string; mimeType: string; text: string }[];
    };
    expect(read.contents[0]!.mimeType).to.equal('text/html;profile=mcp-app');
    expect(read.contents[0]!.text).to.include('<title>Fund performance</title>');
  });
});
