import { expect } from 'chai';
import { authenticate } from '../auth/principal.ts';
import { loadConfig } from '../server/config.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import type { ToolContext } from '../tools/context.ts';
import { InsufficientScope } from '../tools/errors.ts';
import { registry, toolByName } from '../tools/registry.ts';
import { runTool } from '../tools/run.ts';
import { READ_TOOLSETS } from '../tools/toolsets.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { REDIRECT, registerClient, signInFlow, WebClient } from './helpers/oauth.ts';
import { api, startTestServer } from './helpers/server.ts';

const writeToolNames = registry.filter((t) => t.write && t.mcp !== false).map((t) => t.name);

function mcp(base: string, token: string, method: string, params?: unknown) {
  return api(base, '/mcp', {
    token,
    method: 'POST',
    headers: { Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) },
  });
}

for (const dialect of dialects) {
  describe(`OAuth scopes on every tool and route (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let readOnly: string;
    let readWrite: string;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, {
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: [...READ_TOOLSETS, 'writes'].join(',') },
      });
      readOnly = (await signInFlow(server.url, new WebClient(server.url), { scope: 'read' })).tokens
        .access_token;
      readWrite = (await signInFlow(server.url, new WebClient(server.url), { scope: 'read write' })).tokens
        .access_token;
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('lists no write tool to a read-only sign-in, and every one to a read-write sign-in', async () => {
      expect(writeToolNames).to.include.members(['update_metric', 'add_financing_rounds']);
      const ro = await mcp(server.url, readOnly, 'tools/list');
      const rw = await mcp(server.url, readWrite, 'tools/list');
      const names = (res: { body: { result: { tools: { name: string }[] } } }) =>
        res.body.result.tools.map((tool) => tool.name);
      for (const name of writeToolNames) expect(names(ro)).to.not.include(name);
      expect(names(rw)).to.include.members(writeToolNames);
      expect(names(ro)).to.include('list_companies');
    });

    it('refuses update_metric with a read-only MCP token: 403 insufficient_scope naming write, nothing changed', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '10.00',
      });
      const res = await mcp(server.url, readOnly, 'tools/call', {
        name: 'update_metric',
        arguments: { datum_id: id, value: '99' },
      });
      expect(res.status).to.equal(403);
      const challenge = res.headers.get('www-authenticate')!;
      expect(challenge).to.match(/^Bearer /);
      expect(challenge).to.include('error="insufficient_scope"');
      expect(challenge).to.include('scope="write"');
      expect(challenge).to.include('resource_metadata=');
      const row = await t.db('metric_data').where({ id }).first();
      expect(Number(row.value)).to.equal(10);

      const allowed = await mcp(server.url, readWrite, 'tools/call', {
        name: 'update_metric',
        arguments: { datum_id: id, value: '99' },
      });
      expect(allowed.status).to.equal(200);
      expect(allowed.body.result.isError).to.not.equal(true);
    });

    it('refuses add_financing_rounds with a read-only MCP token', async () => {
      const res = await mcp(server.url, readOnly, 'tools/call', {
        name: 'add_financing_rounds',
        arguments: { financing_rounds: [] },
      });
      expect(res.status).to.equal(403);
      expect(res.headers.get('www-authenticate')).to.include('error="insufficient_scope"');
    });

    it('still answers reads to a read-only MCP token', async () => {
      const res = await mcp(server.url, readOnly, 'tools/call', { name: 'list_companies', arguments: {} });
      expect(res.status).to.equal(200);
      expect(res.body.result.structuredContent.count).to.be.greaterThan(0);
    });

    it('checks the scope in runTool, before validating input, for every caller (REST included)', async () => {
      const principal = await authenticate(fx.repos, { now: () => new Date() }, `Bearer ${readOnly}`, 'mcp', {
        mcpResource: `${server.url}/mcp`,
      });
      expect(principal.scopes).to.deep.equal(['read']);
      const ctx: ToolContext = {
        principal,
        repos: fx.repos,
        clock: { now: () => new Date() },
        logger: createLogger('silent'),
        requestId: 'r',
        publicUrl: server.url,
        documentStorageQuotaBytes: loadConfig({}).documentStorageQuotaBytes,
      };
      let caught: unknown;
      try {
        await runTool(toolByName('update_metric')!, ctx, { not: 'valid' });
      } catch (err) {
        caught = err;
      }
      expect(caught).to.be.instanceOf(InsufficientScope);
      expect((caught as InsufficientScope).status).to.equal(403);
    });

    it('keeps both scopes for application (client-credentials) tokens, which write over REST as before', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '1.00',
      });
      const res = await api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body: { value: '2' },
      });
      expect(res.status).to.equal(200);
    });

    it('describes exactly the requested scopes on the consent page', async () => {
      const web = new WebClient(server.url);
      const { body: client } = await registerClient(server.url, { redirect_uris: [REDIRECT] });
      await web.signIn('admin@alpha.test', 'fixture-password', '/');
      const page = async (scope: string) => {
        const params = new URLSearchParams({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          state: 's',
          scope,
          resource: `${server.url}/mcp`,
        });
        return (await web.get(`/authorize?${params}`)).text;
      };
      const ro = await page('read');
      expect(ro).to.include('read only');
      expect(ro).to.not.include('<strong>write</strong>');
      const rw = await page('read write');
      expect(rw).to.include('<strong>read</strong>');
      expect(rw).to.include('<strong>write</strong>');
      expect(rw).to.not.include('read only');
    });
  });
}
