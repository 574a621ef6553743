import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

const TOKEN = 'metrics-token-for-tests-0001';

/** The value of one sample line, e.g. `tool_calls_total{tool="x",outcome="ok"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', function () {
  this.timeout(30_000);
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer | undefined;

  beforeEach(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await t.drop();
  });

  const get = (path: string, token: string) =>
    fetch(`${server!.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

  it('counts requests, tool calls by outcome, rate-limit rejections, sign-ins, pool and queries after REST and MCP traffic', async () => {
    server = await startTestServer(t.db, { env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '4' } });
    expect((await get('/v1/companies/', fx.admin.pat)).status).to.equal(200);
    expect((await get('/v1/companies/', fx.admin.pat)).status).to.equal(200);
    expect((await get('/v1/companies/?page_size=0', fx.admin.pat)).status).to.equal(400);
    const client = await mcpClient(server.url, fx.viewer.pat);
    await client.callTool({ name: 'list_companies', arguments: {} });
    await client.close();
    // The editor's fifth request in the minute is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get('/v1/funds/', fx.editor.pat)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 429]);
    await t.db('web_sessions').insert({
      id_hash: 'a'.repeat(64),
      user_id: fx.viewer.user.id,
      csrf_token: 'c'.repeat(64),
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });

    const res = await get('/metrics', TOKEN);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/companies/",status="200"}')).to.equal(2);
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/companies/",status="400"}')).to.equal(1);
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/funds/",status="429"}')).to.equal(1);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="/v1/companies/",status="200"}'),
    ).to.equal(2);
    expect(sample(text, 'tool_calls_total{tool="list_companies",outcome="ok"}')).to.equal(3);
    expect(sample(text, 'tool_calls_total{tool="list_companies",outcome="client_error"}')).to.equal(1);
    expect(sample(text, 'rate_limit_rejections_total')).to.equal(1);
    expect(sample(text, 'active_sign_ins')).to.equal(1);
    expect(sample(text, 'db_pool_connections{state="free"}')).to.be.a('number');
    expect(sample(text, 'db_query_duration_seconds_count')).to.be.greaterThan(0);
    expect(text).to.match(/^nodejs_eventloop_lag_seconds \d/m);
    // MCP requests are counted under their route too.
    expect(sample(text, 'http_requests_total{method="POST",route="/mcp",status="200"}')).to.be.greaterThan(0);
  });

  it('refuses a request without the metrics token, even with a valid API token', async () => {
    server = await startTestServer(t.db, { env: { METRICS_TOKEN: TOKEN } });
    const none = await fetch(`${server.url}/metrics`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('www-authenticate')).to.match(/^Bearer/);
    expect(((await none.json()) as { code: string }).code).to.equal('unauthenticated');
    expect((await get('/metrics', fx.admin.pat)).status).to.equal(401);
    expect((await get('/metrics', `${TOKEN}x`)).status).to.equal(401);
  });

  it('is not served on the main port without METRICS_TOKEN', async () => {
    server = await startTestServer(t.db);
    expect((await get('/metrics', fx.admin.pat)).status).to.equal(404);
  });

  it('is served on METRICS_PORT without a token', async () => {
    server = await startTestServer(t.db, { env: { METRICS_PORT: '0' } });
    expect((await get('/healthz', '')).status).to.equal(200);
    const res = await fetch(server.metricsUrl!);
    expect(res.status).to.equal(200);
    expect(
      sample(await res.text(), 'http_requests_total{method="GET",route="/healthz",status="200"}'),
    ).to.equal(1);
    expect((await get('/metrics', fx.admin.pat)).status).to.equal(404);
  });
});
