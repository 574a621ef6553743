import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { spawnServer } from './helpers/child-server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, createApp, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

const redisUrl = process.env.TEST_REDIS_URL;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

async function token(base: string, id: string, secret: string) {
  const res = await fetch(`${base}/o/token/`, {
    method: 'POST',
    headers: { Authorization: basic(id, secret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

describe('protection', () => {
  let t: TestDb;
  let fx: Fixture;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    await t?.drop();
  });

  describe('per-principal rate limit (in memory)', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db);
    });
    after(async () => server?.close());

    it('reports the budget on every authenticated response and answers the 501st request in a minute with 429', async () => {
      const first = await api(server.url, '/v1/companies/?page_size=1', { token: fx.viewer.rest });
      expect(first.headers.get('ratelimit-limit')).to.equal('500');
      expect(first.headers.get('ratelimit-remaining')).to.equal('499');
      expect(Number(first.headers.get('ratelimit-reset'))).to.be.within(1, 60);
      for (let i = 2; i <= 500; i++) {
        const res = await fetch(`${server.url}/v1/companies/?page_size=1`, {
          headers: { Authorization: `Bearer ${fx.viewer.rest}` },
        });
        await res.arrayBuffer();
        expect(res.status).to.equal(200);
      }
      const over = await api(server.url, '/v1/companies/', { token: fx.viewer.rest });
      expect(over.status).to.equal(429);
      expect(over.body.code).to.equal('rate_limited');
      expect(over.headers.get('content-type')).to.match(/problem\+json/);
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
      expect(over.headers.get('ratelimit-remaining')).to.equal('0');
      expect(over.headers.get('ratelimit-limit')).to.equal('500');
      // Another principal has a budget of its own.
      expect((await api(server.url, '/v1/companies/', { token: fx.editor.rest })).status).to.equal(200);
    });
  });

  describe('brute-force limits and revocation', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db);
    });
    after(async () => server?.close());

    it('answers the 11th failed secret for one client id within a minute with 429, even with the right secret', async () => {
      const app = await createApp(fx.repos, fx.admin.user);
      for (let i = 0; i < 10; i++)
        expect((await token(server.url, app.clientId, 'wrong')).status).to.equal(401);
      const blocked = await token(server.url, app.clientId, app.clientSecret);
      expect(blocked.status).to.equal(429);
      expect(blocked.body.error).to.equal('too_many_requests');
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 60);
    });

    it('revokes a token at /o/revoke_token/ (RFC 7009), after which it is 401 invalid_token', async () => {
      const other = await startTestServer(t.db);
      try {
        const app = await createApp(fx.repos, fx.editor.user);
        const issued = await token(other.url, app.clientId, app.clientSecret);
        expect((await api(other.url, '/v1/companies/', { token: issued.body.access_token })).status).to.equal(
          200,
        );
        const res = await fetch(`${other.url}/o/revoke_token/`, {
          method: 'POST',
          headers: {
            Authorization: basic(app.clientId, app.clientSecret),
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: `token=${encodeURIComponent(issued.body.access_token)}&token_type_hint=access_token`,
        });
        expect(res.status).to.equal(200);
        const after = await api(other.url, '/v1/companies/', { token: issued.body.access_token });
        expect(after.status).to.equal(401);
        expect(after.headers.get('www-authenticate')).to.match(/error="invalid_token"/);
      } finally {
        await other.close();
      }
    });

    it('ends every token of a deactivated user at once', async () => {
      const pat = fx.restricted.pat;
      expect((await api(server.url, '/v1/companies/', { token: pat })).status).to.equal(200);
      await fx.repos.users.setActive(fx.restricted.user.id, false);
      try {
        expect((await api(server.url, '/v1/companies/', { token: pat })).status).to.equal(401);
        expect((await api(server.url, '/v1/companies/', { token: fx.restricted.rest })).status).to.equal(401);
      } finally {
        await fx.repos.users.setActive(fx.restricted.user.id, true);
      }
    });
  });

  describe('hardening', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db);
    });
    after(async () => server?.close());

    it('sends security headers', async () => {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
      expect(res.headers.get('x-powered-by')).to.equal(null);
    });

    it('answers a body over 1 MiB with 413 and a non-JSON body with 415', async () => {
      const big = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fx.admin.pat}` },
        body: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) }),
      });
      expect(big.status).to.equal(413);
      expect(((await big.json()) as { code: string }).code).to.equal('payload_too_large');
      const text = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${fx.admin.pat}` },
        body: 'hello',
      });
      expect(text.status).to.equal(415);
      expect(((await text.json()) as { code: string }).code).to.equal('unsupported_media_type');
    });

    it('answers malformed JSON with 400 problem+json and no internals', async () => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fx.admin.pat}` },
        body: '{"broken": ',
      });
      expect(res.status).to.equal(400);
      const text = await res.text();
      expect(text).to.not.match(/at .*\.ts:\d+|SyntaxError|node_modules/);
    });
  });

  (redisUrl ? describe : describe.skip)('rate limit shared over Redis', () => {
    it('counts requests to two server processes against one budget', async function () {
      this.timeout(60000);
      // Two production processes over one database file and one Redis, with a budget of 20 a minute.
      const env = { REDIS_URL: redisUrl!, RATE_LIMIT_PER_MINUTE: '20' };
      const a = await spawnServer(t.url, env);
      const b = await spawnServer(t.url, env);
      try {
        const app = await createApp(fx.repos, fx.viewer.user);
        const issued = await token(a.url, app.clientId, app.clientSecret);
        const statuses: number[] = [];
        for (let i = 0; i < 21; i++) {
          const res = await api(i % 2 ? b.url : a.url, '/v1/companies/', { token: issued.body.access_token });
          statuses.push(res.status);
        }
        expect(statuses.slice(0, 20).every((s) => s === 200)).to.equal(true);
        expect(statuses[20]).to.equal(429);
      } finally {
        await a.stop();
        await b.stop();
      }
    });

    it('keeps serving with per-node limits when Redis stops mid-test', async function () {
      this.timeout(30000);
      const port = await freePort();
      const redis: ChildProcess = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      await new Promise((r) => setTimeout(r, 300));
      const server = await startTestServer(t.db, {
        env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '30' },
      });
      try {
        const app = await createApp(fx.repos, fx.viewer.user);
        const issued = await token(server.url, app.clientId, app.clientSecret);
        for (let i = 0; i < 5; i++) {
          expect(
            (await api(server.url, '/v1/companies/', { token: issued.body.access_token })).status,
          ).to.equal(200);
        }
        redis.kill('SIGKILL');
        await once(redis, 'exit');
        const statuses: number[] = [];
        for (let i = 0; i < 35; i++) {
          statuses.push(
            (await api(server.url, '/v1/companies/', { token: issued.body.access_token })).status,
          );
        }
        expect(statuses.filter((s) => s >= 500)).to.deep.equal([]);
        expect(statuses.slice(0, 25).every((s) => s === 200)).to.equal(true);
        expect(statuses).to.include(429);
      } finally {
        redis.kill('SIGKILL');
        await server.close();
      }
    });
  });
});

describe('MCP transport guards', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db, { env: { MCP_ALLOWED_ORIGINS: 'https://claude.example' } });
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const headers = (extra: Record<string, string> = {}) => ({
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${fx.admin.pat}`,
    ...extra,
  });

  it('refuses a foreign Origin with 403', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: headers({ Origin: 'https://evil.example' }),
      body: JSON.stringify(list),
    });
    expect(res.status).to.equal(403);
  });

  it('serves an allowed browser origin with CORS headers that expose WWW-Authenticate', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: headers({ Origin: 'https://claude.example' }),
      body: JSON.stringify(list),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal('https://claude.example');
    expect(res.headers.get('access-control-expose-headers')).to.contain('WWW-Authenticate');
    const pre = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://claude.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(pre.status).to.equal(204);
    for (const h of ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id']) {
      expect(pre.headers.get('access-control-allow-headers')).to.contain(h);
    }
  });

  it('answers GET and DELETE on /mcp with 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: headers() });
      expect(res.status, method).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
    }
  });
});
