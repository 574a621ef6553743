import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { authenticate } from '../auth/principal.ts';
import { systemClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RunningServer } from '../server/http.ts';
import type { ToolContext } from '../tools/context.ts';
import { handleMcpRequest, serveToolCall } from '../tools/mcp.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';

// The server answers a plain tools/call itself; everything else goes through the SDK's server and
// transport. Both must give a client the same answer, and what the plain path does not serve must still
// get the SDK's answer.

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

describe('MCP tools/call answered without the SDK transport', () => {
  let t: TestDb;
  let f: Fixture;
  let server: RunningServer;
  let sdkOnly: Server;
  let sdkUrl: string;
  let plainOnly: Server;
  let plainUrl: string;

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
    // And through the plain path alone: 599 where it leaves the request to the SDK.
    ({ server: plainOnly, url: plainUrl } = await serving(async (ctx, req, res, body) => {
      if (!(await serveToolCall(ctx, options, req, res, body))) res.writeHead(599).end();
    }));
  });
  after(async () => {
    await new Promise((resolve) => sdkOnly.close(resolve));
    await new Promise((resolve) => plainOnly.close(resolve));
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

  it('gives the same answer as the SDK, byte for byte, for results, notes and refusals', async () => {
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
      const plain = await call(plainUrl, body);
      const ours = await call(`${server.url}/mcp`, body);
      expect(plain.status, JSON.stringify(body)).to.equal(200);
      expect(plain.type).to.match(/^application\/json/);
      expect(plain.body, JSON.stringify(body)).to.equal(sdk.body);
      expect(ours.body, JSON.stringify(body)).to.equal(sdk.body);
    }
  });

  it('leaves an unknown tool, another method, a bad Accept or protocol version to the SDK', async () => {
    for (const [body, extra] of [
      [toolCall(1, 'no_such_tool'), {}],
      [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }, {}],
      [toolCall(3, 'list_companies'), { Accept: 'application/json' }],
      [toolCall(4, 'list_companies'), { 'MCP-Protocol-Version': '1999-01-01' }],
      [{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'list_companies' } }, {}],
      [
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_companies', arguments: [1] } },
        {},
      ],
    ] as const) {
      expect((await call(plainUrl, body, extra)).status, JSON.stringify(body)).to.equal(599);
    }
    // The server then answers as the SDK does.
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
