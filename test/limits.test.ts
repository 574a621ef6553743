import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { main } from '../cli/main.ts';
import type { RunningServer } from '../server/http.ts';
import { spawnServer } from './helpers/child-server.ts';
import { dialects, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, createApp, type Fixture } from './helpers/fixture.ts';
import { csrfOf, registerClient, tokenRequest, WebClient } from './helpers/oauth.ts';
import { startTestServer } from './helpers/server.ts';

const redisUrl = process.env.TEST_REDIS_URL;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** A random benchmarking address (RFC 2544) per call, so runs sharing one Redis never share a budget. */
function freshAddress(): string {
  return `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

async function clientCredentialsToken(base: string, id: string, secret: string, address: string) {
  const res = await fetch(`${base}/o/token/`, {
    method: 'POST',
    headers: {
      Authorization: basic(id, secret),
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Forwarded-For': address,
    },
    body: 'grant_type=client_credentials',
  });
  await res.arrayBuffer();
  return res.status;
}

function count(statuses: number[], status: number): number {
  return statuses.filter((s) => s === status).length;
}

const mcpHeaders = (token: string) => ({
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});

function toolCall(id: number) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_companies', arguments: {} } };
}

describe('limits', () => {
  let t: TestDb;
  let fx: Fixture;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    await t?.drop();
  });

  describe('MCP batches', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db, { env: { RATE_LIMIT_PER_MINUTE: '5' } });
    });
    after(async () => server?.close());

    it('refuses a JSON-RPC batch on /mcp with 400 and error -32600, running none of its calls', async () => {
      const batch = Array.from({ length: 100 }, (_, i) => toolCall(i + 1));
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(fx.editor.pat),
        body: JSON.stringify(batch),
      });
      expect(res.status).to.equal(400);
      const body = (await res.json()) as {
        jsonrpc: string;
        id: unknown;
        error: { code: number; message: string };
      };
      expect(body.jsonrpc).to.equal('2.0');
      expect(body.id).to.equal(null);
      expect(body.error.code).to.equal(-32600);
      expect(body.error.message).to.match(/batch/i);
    });

    it('counts every /mcp request against the rate limit before reading its body, even malformed ones', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: mcpHeaders(fx.admin.pat),
          body: i % 2 ? '[' : JSON.stringify([toolCall(1)]),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 5).every((s) => s === 400)).to.equal(true);
      expect(statuses[5]).to.equal(429);
    });
  });

  describe('failure limits under concurrency (in memory)', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db, { env: { TRUST_PROXY: 'true' } });
    });
    after(async () => server?.close());

    it('verifies at most 10 of 30 parallel wrong client secrets at /o/token/ and refuses the rest with 429', async () => {
      const app = await createApp(fx.repos, fx.viewer.user);
      const address = freshAddress();
      const statuses = await Promise.all(
        Array.from({ length: 30 }, () => clientCredentialsToken(server.url, app.clientId, 'wrong', address)),
      );
      expect(count(statuses, 401)).to.be.at.most(10);
      expect(count(statuses, 401) + count(statuses, 429)).to.equal(30);
    });

    it('verifies at most 10 of 30 parallel wrong passwords at the login form', async () => {
      const browser = new WebClient(server.url, { 'X-Forwarded-For': freshAddress() });
      const csrf = csrfOf((await browser.get('/login')).text);
      const pages = await Promise.all(
        Array.from({ length: 30 }, () =>
          browser.post('/login', { csrf_token: csrf, email: fx.editor.user.email, password: 'wrong' }),
        ),
      );
      const statuses = pages.map((p) => p.status);
      expect(count(statuses, 401)).to.be.at.most(10);
      expect(count(statuses, 401) + count(statuses, 429)).to.equal(30);
    });

    it('verifies at most 10 of 30 parallel wrong client secrets at the MCP token endpoint', async () => {
      const registered = await registerClient(server.url, {
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code', 'refresh_token'],
      });
      expect(registered.status).to.equal(201);
      const address = freshAddress();
      const results = await Promise.all(
        Array.from({ length: 30 }, () =>
          tokenRequest(
            server.url,
            { grant_type: 'refresh_token', refresh_token: 'nothing' },
            { Authorization: basic(registered.body.client_id, 'wrong'), 'X-Forwarded-For': address },
          ),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(count(statuses, 401)).to.be.at.most(10);
      expect(count(statuses, 401) + count(statuses, 429)).to.equal(30);
    });

    it("signs the owner in from their usual address while someone else's failures lock the account elsewhere", async () => {
      const attacker = new WebClient(server.url, { 'X-Forwarded-For': freshAddress() });
      const csrf = csrfOf((await attacker.get('/login')).text);
      const attempts: number[] = [];
      for (let i = 0; i < 12; i++)
        attempts.push(
          (await attacker.post('/login', { csrf_token: csrf, email: fx.admin.user.email, password: 'wrong' }))
            .status,
        );
      expect(attempts.at(-1)).to.equal(429);
      const owner = new WebClient(server.url, { 'X-Forwarded-For': freshAddress() });
      expect((await owner.signIn(fx.admin.user.email)).status).to.equal(303);
    });

    it('refuses one address with 429 once it has failed 50 times over many accounts', async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++)
        statuses.push(await clientCredentialsToken(server.url, `nobody-${i}`, 'wrong', address));
      expect(statuses.slice(0, 50).every((s) => s === 401)).to.equal(true);
      expect(statuses[50]).to.equal(429);
    });

    it('does not spend the budget on right secrets', async () => {
      const app = await createApp(fx.repos, fx.viewer.user);
      const address = freshAddress();
      for (let i = 0; i < 15; i++)
        expect(await clientCredentialsToken(server.url, app.clientId, app.clientSecret, address)).to.equal(
          200,
        );
      expect(await clientCredentialsToken(server.url, app.clientId, 'wrong', address)).to.equal(401);
    });
  });

  describe('failure limits across nodes (Redis)', () => {
    before(function () {
      if (!redisUrl) this.skip();
    });

    it('verifies at most 10 of 30 parallel wrong client secrets sent to two server processes sharing Redis', async function () {
      this.timeout(60000);
      const env = { REDIS_URL: redisUrl!, TRUST_PROXY: 'true' };
      const a = await spawnServer(t.url, env);
      const b = await spawnServer(t.url, env);
      try {
        const app = await createApp(fx.repos, fx.viewer.user);
        const address = freshAddress();
        const statuses = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            clientCredentialsToken(i % 2 ? b.url : a.url, app.clientId, 'wrong', address),
          ),
        );
        expect(count(statuses, 401)).to.be.at.most(10);
        expect(count(statuses, 401) + count(statuses, 429)).to.equal(30);
      } finally {
        await a.stop();
        await b.stop();
      }
    });
  });

  describe('client registration', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db, { env: { TRUST_PROXY: 'true' } });
    });
    after(async () => server?.close());

    async function register(address: string, metadata: Record<string, unknown> = {}) {
      const res = await fetch(`${server.url}/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
        body: JSON.stringify({
          client_name: 'Limited Client',
          redirect_uris: ['https://app.example/cb'],
          token_endpoint_auth_method: 'none',
          ...metadata,
        }),
      });
      return {
        status: res.status,
        headers: res.headers,
        body: (await res.json()) as Record<string, unknown>,
      };
    }

    it('answers the 11th registration from one address in a minute with 429, and serves other addresses', async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await register(address)).status);
      expect(statuses).to.deep.equal(Array(10).fill(201));
      const over = await register(address);
      expect(over.status).to.equal(429);
      expect(over.body.error).to.equal('too_many_requests');
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
      expect((await register(freshAddress())).status).to.equal(201);
    });

    it('refuses oversized metadata fields with invalid_client_metadata and stores nothing', async () => {
      const before = Number((await t.db('mcp_clients').count({ n: '*' }))[0]!.n);
      const oversized: Record<string, unknown>[] = [
        { client_name: 'x'.repeat(100_000) },
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) },
        { redirect_uris: [`https://app.example/${'p'.repeat(3000)}`] },
        { contacts: Array.from({ length: 50 }, (_, i) => `c${i}@example.com`) },
        { scope: 'read '.repeat(100) },
        { software_statement: 'e'.repeat(10_000) },
        { jwks: { keys: Array.from({ length: 200 }, () => ({ kty: 'oct', k: 'k'.repeat(64) })) } },
      ];
      for (const metadata of oversized) {
        const res = await register(freshAddress(), metadata);
        expect(res.status, Object.keys(metadata)[0]).to.equal(400);
        expect(res.body.error).to.equal('invalid_client_metadata');
        expect(res.body.error_description).to.match(/at most/);
      }
      const after = Number((await t.db('mcp_clients').count({ n: '*' }))[0]!.n);
      expect(after).to.equal(before);
    });
  });

  describe('applications and tokens per user', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db);
    });
    after(async () => server?.close());

    /** Runs the command line in this process over the suite's database; answers status and stderr. */
    async function cli(args: string[], env: Record<string, string> = {}) {
      let err = '';
      const status = await main(args, {
        out: () => undefined,
        err: (text) => {
          err += text;
        },
        env: { DATABASE_URL: t.url, LOG_LEVEL: 'silent', ...env },
      });
      return { status, err };
    }

    it('refuses an application past OAUTH_APPLICATIONS_PER_USER unrevoked ones, naming the way out', async () => {
      // The fixture already gave the editor one application.
      const env = { OAUTH_APPLICATIONS_PER_USER: '3' };
      const create = (name: string) =>
        cli(['apps', 'create', '--firm', fx.firmA.slug, '--user', fx.editor.user.email, '--name', name], env);
      expect((await create('second')).status).to.equal(0);
      expect((await create('third')).status).to.equal(0);
      const refused = await create('fourth');
      expect(refused.status).to.equal(1);
      expect(refused.err).to.match(/already has 3 applications.*revoke one first/);
      const apps = await t
        .db('oauth_applications')
        .where({ user_id: fx.editor.user.id })
        .whereNull('revoked_at');
      expect(apps).to.have.length(3);
    });

    it("counts one user's applications and tokens on the web pages and the CLI against one budget of 20 an hour", async () => {
      const email = fx.restricted.user.email;
      for (let i = 0; i < 10; i++)
        expect((await cli(['tokens', 'create', '--user', email, '--name', `cli ${i}`])).status).to.equal(0);
      const browser = new WebClient(server.url);
      expect((await browser.signIn(email)).status).to.equal(303);
      for (let i = 0; i < 10; i++) {
        const page = await browser.get('/account/developer');
        const path = i % 2 ? '/account/developer/tokens' : '/account/developer/applications';
        const created = await browser.post(path, {
          csrf_token: csrfOf(page.text),
          name: `web ${i}`,
          days: '7',
        });
        expect(created.status, `web ${i}`).to.equal(201);
      }
      const page = await browser.get('/account/developer');
      const refused = await browser.post('/account/developer/applications', {
        csrf_token: csrfOf(page.text),
        name: 'one too many',
      });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('in the last hour');
      const cliRefused = await cli(['tokens', 'create', '--user', email, '--name', 'cli late']);
      expect(cliRefused.status).to.equal(1);
      expect(cliRefused.err).to.include('in the last hour');
    });
  });
});

for (const dialect of dialects) {
  describe(`abandoned client registrations (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    it('deletes registered clients that never completed a sign-in before the cut-off, and keeps the rest', async () => {
      const client = (client_id: string, created_at: string, is_metadata_document = false) => ({
        client_id,
        client_secret_hash: null,
        metadata: '{}',
        is_metadata_document,
        created_at,
        fetched_at: is_metadata_document ? created_at : null,
      });
      const old = '2026-01-01T00:00:00.000Z';
      await fx.repos.mcpAuth.insertClient(client('abandoned', old));
      await fx.repos.mcpAuth.insertClient(client('signed-in', old));
      await fx.repos.mcpAuth.insertClient(client('recent', '2026-03-01T00:00:00.000Z'));
      await fx.repos.mcpAuth.insertClient(client('https://app.example/client.json', old, true));
      await t.db('mcp_grants').insert({
        id: 'grant-1',
        client_id: 'signed-in',
        user_id: fx.viewer.user.id,
        firm_id: fx.viewer.user.firm_id,
        resource: 'http://127.0.0.1/mcp',
        scope: 'read',
        created_at: old,
        expires_at: '2026-02-01T00:00:00.000Z',
      });
      await fx.repos.mcpAuth.insertCode({
        code_hash: 'c'.repeat(64),
        client_id: 'abandoned',
        user_id: fx.viewer.user.id,
        redirect_uri: 'https://app.example/cb',
        code_challenge: 'x'.repeat(43),
        resource: 'http://127.0.0.1/mcp',
        scope: 'read',
        expires_at: old,
        used_at: null,
        grant_id: null,
        redirect_uri_given: true,
      });

      expect(await fx.repos.mcpAuth.deleteAbandonedClients('2026-02-01T00:00:00.000Z')).to.equal(1);
      const left = (await t.db('mcp_clients').select('client_id').orderBy('client_id')).map(
        (r) => r.client_id,
      );
      expect(left).to.deep.equal(['https://app.example/client.json', 'recent', 'signed-in']);
      expect(await t.db('authorization_codes').where({ client_id: 'abandoned' })).to.deep.equal([]);
    });
  });
}
