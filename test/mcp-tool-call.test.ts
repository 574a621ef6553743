import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { authenticate } from '../auth/principal.ts';
import { systemClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { handleMcpRequest } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import type { ToolContext } from '../tools/context.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';

// Every MCP request, tools/call included, goes through the SDK's server and Streamable HTTP transport
// (stateless: a new pair per request). The service must answer as that pair alone does, and the SDK's
// JSON-RPC, Accept and protocol-version handling must reach a client.

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

describe('MCP tools/call answered through the SDK transport', () => {
  let t: TestDb;
  let f: Fixture;
  let server: RunningServer;
  let sdkOnly: Server;
  let sdkUrl: string;

  /** A server that hands each request's context and parsed body to `serve`. */
  async function serving(
    serve: (ctx: ToolContext, req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>,
  ): Promise<{ server: Server; url: string }> {
    const s = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => {
        raw += chunk;
      });
      req.on('end', async () => {
        const principal = await authenticate(f.repos, systemClock, req.headers.authorization, 'mcp');
        const ctx = {
          principal,
          repos: f.repos,
          clock: systemClock,
          logger: quiet,
          requestId: 'test',
          publicUrl: 'http://127.0.0.1',
          documentStorageQuotaBytes: 1e9,
        };
        await serve(ctx, req, res, JSON.parse(raw));
      });
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return { server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp` };
  }

  before(async () => {
    t = await sqliteTestDb();
    f = await buildFixture(t.db);
    server = await startTestServer(t.db);
    const options = { writeTools: false, validateOutput: true };
    // The same call through the SDK's server and Streamable HTTP transport alone.
    ({ server: sdkOnly, url: sdkUrl } = await serving((ctx, req, res, body) =>
      handleMcpRequest(ctx, options, req, res, body),
    ));
  });
  after(async () => {
    await new Promise((resolve) => sdkOnly.close(resolve));
    await server.close();
    await t.drop();
  });

  const headers = (extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${f.admin.pat}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  });

  async function call(url: string, body: unknown, extra?: Record<string, string>) {
    const res = await fetch(url, { method: 'POST', headers: headers(extra), body: JSON.stringify(body) });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  }

  const toolCall = (id: number | string, name: string, args?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, ...(args ? { arguments: args } : {}) },
  });

  it("gives the same answer as the SDK's server and transport alone, byte for byte, for results, notes and refusals", async () => {
    const calls = [
      toolCall(1, 'list_companies'),
      toolCall('a', 'list_companies', { per_page: 500, response_format: 'detailed' }),
      toolCall(3, 'get_company', { company_id: f.companies.acme.id }),
      toolCall(4, 'get_company', { company_id: 'cmp_nope' }),
      toolCall(5, 'get_company_metrics', { company_ids: [f.companies.beta.id] }),
      toolCall(6, 'list_companies', { per_page: 'many' }),
    ];
    for (const body of calls) {
      const sdk = await call(sdkUrl, body);
      const ours = await call(`${server.url}/mcp`, body);
      expect(ours.status, JSON.stringify(body)).to.equal(200);
      expect(ours.type).to.match(/^application\/json/);
      expect(ours.body, JSON.stringify(body)).to.equal(sdk.body);
    }
  });

  it('answers an unknown tool, another method, a bad Accept or protocol version as the SDK does', async () => {
    const unknown = JSON.parse((await call(`${server.url}/mcp`, toolCall(1, 'no_such_tool'))).body);
    expect(unknown.error.code).to.equal(-32602);
    expect(unknown.error.message).to.match(/unknown tool no_such_tool/);

    const listing = JSON.parse(
      (await call(`${server.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).body,
    );
    expect(listing.result.tools.map((tool: { name: string }) => tool.name)).to.include('list_companies');

    const accept = await call(`${server.url}/mcp`, toolCall(3, 'list_companies'), {
      Accept: 'application/json',
    });
    expect(accept.status).to.equal(406);

    const version = await call(`${server.url}/mcp`, toolCall(4, 'list_companies'), {
      'MCP-Protocol-Version': '1999-01-01',
    });
    expect(version.status).to.equal(400);
    expect(version.body).to.match(/protocol version/i);
  });

  it('answers a call that states a supported protocol version', async () => {
    const res = await call(`${server.url}/mcp`, toolCall(5, 'list_companies'), {
      'MCP-Protocol-Version': '2025-06-18',
    });
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.body).result.structuredContent.count).to.equal(3);
  });
});
