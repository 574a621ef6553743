import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { createLogger } from '../server/logger.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, createApp, type Fixture } from './helpers/fixture.ts';

type Line = Record<string, unknown>;

function jsonLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

/** Waits until the server has written a line for each request id. */
async function linesFor(server: ChildServer, ids: string[]): Promise<Line[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const lines = jsonLines(server.stderr());
    if (ids.every((id) => lines.some((l) => l.request_id === id)) || Date.now() > deadline) return lines;
    await delay(25);
  }
}

describe('logs', function () {
  this.timeout(60_000);
  let t: TestDb;
  let fx: Fixture;
  let server: ChildServer | undefined;

  beforeEach(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await t.drop();
  });

  it('writes one access line per request at info with request id, principal, route, status and duration, and no secret', async () => {
    server = await spawnServer(t.url, { LOG_LEVEL: 'info' });
    const app = await createApp(fx.repos, fx.admin.user);
    const cookie = 'session-cookie-value-0451';

    const list = await fetch(`${server.url}/v1/companies/?page_size=2`, {
      headers: {
        Authorization: `Bearer ${fx.admin.pat}`,
        'X-Request-Id': 'log-list',
        Cookie: `sid=${cookie}`,
      },
    });
    expect(list.status).to.equal(200);
    const token = await fetch(`${server.url}/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Request-Id': 'log-token' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    expect(token.status).to.equal(200);
    const issued = ((await token.json()) as { access_token: string }).access_token;
    const refused = await fetch(`${server.url}/v1/companies/`, {
      headers: { Authorization: 'Bearer not-a-real-token-7781', 'X-Request-Id': 'log-refused' },
    });
    expect(refused.status).to.equal(401);
    const missing = await fetch(`${server.url}/no/such/path`, { headers: { 'X-Request-Id': 'log-missing' } });
    expect(missing.status).to.equal(404);

    const lines = await linesFor(server, ['log-list', 'log-token', 'log-refused', 'log-missing']);
    const access = (id: string) => lines.filter((l) => l.request_id === id && l.msg === 'request');
    for (const id of ['log-list', 'log-token', 'log-refused', 'log-missing'])
      expect(access(id), id).to.have.length(1);

    const [listLine] = access('log-list');
    expect(listLine).to.include({
      level: 'info',
      method: 'GET',
      route: '/v1/companies/',
      status: 200,
      principal_id: `user:${fx.admin.user.id}`,
    });
    expect(listLine!.duration_ms).to.be.a('number').and.at.least(0);
    expect(access('log-token')[0]).to.include({ route: '/o/token/', status: 200, principal_id: null });
    expect(access('log-refused')[0]).to.include({ route: '/v1/companies/', status: 401, principal_id: null });
    expect(access('log-missing')[0]).to.include({ route: 'unmatched', status: 404 });

    const everything = server.stderr();
    for (const secret of [
      fx.admin.pat,
      fx.admin.rest,
      app.clientSecret,
      issued,
      cookie,
      'not-a-real-token-7781',
    ])
      expect(everything).not.to.include(secret);
  });

  it('writes lines for people with LOG_FORMAT=pretty', async () => {
    server = await spawnServer(t.url, { LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    const deadline = Date.now() + 5000;
    while (!server.stderr().includes('/healthz') && Date.now() < deadline) await delay(25);
    const line = server
      .stderr()
      .split('\n')
      .find((l) => l.includes('INFO') && l.includes('request'));
    expect(line, server.stderr()).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO/);
    expect(server.stderr()).to.include('route: "/healthz"');
  });

  it('redacts secrets by name wherever a caller nests them', () => {
    const chunks: string[] = [];
    const logger = createLogger('debug', { destination: { write: (s: string) => chunks.push(s) } });
    logger.child({ request_id: 'r1' }).warn('sign-in failed', {
      password: 'pw-top-1',
      headers: { authorization: 'Bearer hdr-2', cookie: 'c-3', 'set-cookie': 'sc-4' },
      body: { client_secret: 'cs-5', nested: { code_verifier: 'cv-6', refresh_token: 'rt-7' } },
      email: 'someone@example.com',
    });
    const written = chunks.join('');
    for (const secret of ['pw-top-1', 'hdr-2', 'c-3', 'sc-4', 'cs-5', 'cv-6', 'rt-7'])
      expect(written).not.to.include(secret);
    const [line] = jsonLines(written);
    expect(line).to.include({
      level: 'warn',
      msg: 'sign-in failed',
      request_id: 'r1',
      email: 'someone@example.com',
    });
    expect((line!.body as { nested: Line }).nested.code_verifier).to.equal('[redacted]');
  });
});
