import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { expect } from 'chai';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';

/** Requests per principal per minute on both nodes. */
const BUDGET = 40;

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** A private redis-server (the shared one must never stop); resolves once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    if (await accepts(port)) return redis;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('redis-server did not start');
}

async function stopRedis(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return;
  redis.kill('SIGKILL');
  await once(redis, 'exit');
}

/** GET /v1/companies/ with a token; a network failure counts as status 0. */
async function call(base: string, token: string): Promise<number> {
  try {
    const res = await fetch(`${base}/v1/companies/?page_size=1`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** `n` requests in turn, alternating between the nodes. */
async function alternate(nodes: ChildServer[], token: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push(await call(nodes[i % nodes.length]!.url, token));
  return statuses;
}

describe('Redis outage under load', () => {
  let t: TestDb;
  let fx: Fixture;
  let redis: ChildProcess | undefined;
  let nodes: ChildServer[] = [];

  before(async function () {
    this.timeout(60000);
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    if (redis) await stopRedis(redis);
    await t?.drop();
  });

  it('falls back to per-node limits when Redis stops mid-load, fails no request, and shares limits again when Redis returns', async function () {
    this.timeout(90000);
    const port = await freePort();
    redis = await startRedis(port);
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: String(BUDGET) };
    nodes = [await spawnServer(t.url, env), await spawnServer(t.url, env)];
    const [a, b] = nodes as [ChildServer, ChildServer];

    // Shared: the two nodes together allow one budget.
    const shared = await alternate(nodes, fx.viewer.pat, BUDGET + 1);
    expect(shared.slice(0, BUDGET)).to.deep.equal(Array(BUDGET).fill(200));
    expect(shared[BUDGET]).to.equal(429);

    // Load on both nodes while Redis is killed: no request fails, only budgets may be spent (429).
    let loading = true;
    const load = async (base: string) => {
      const statuses: number[] = [];
      while (loading) statuses.push(await call(base, fx.other.pat));
      return statuses;
    };
    const running = [load(a.url), load(b.url)];
    await new Promise((r) => setTimeout(r, 300));
    await stopRedis(redis);
    await new Promise((r) => setTimeout(r, 1500));
    loading = false;
    const underLoad = (await Promise.all(running)).flat();
    expect(underLoad.length).to.be.greaterThan(10);
    expect(underLoad.filter((s) => s !== 200 && s !== 429)).to.deep.equal([]);

    // Per node: each node now counts its own budget.
    const onA = await alternate([a], fx.editor.pat, BUDGET + 1);
    const onB = await alternate([b], fx.editor.pat, BUDGET + 1);
    expect(onA.slice(0, BUDGET)).to.deep.equal(Array(BUDGET).fill(200));
    expect(onA[BUDGET]).to.equal(429);
    expect(onB.slice(0, BUDGET)).to.deep.equal(Array(BUDGET).fill(200));
    expect(onB[BUDGET]).to.equal(429);

    // Redis returns (empty): once both nodes reconnect, one budget is shared again.
    redis = await startRedis(port);
    await new Promise((r) => setTimeout(r, 3000));
    const again = await alternate(nodes, fx.admin.pat, BUDGET + 1);
    expect(again.slice(0, BUDGET)).to.deep.equal(Array(BUDGET).fill(200));
    expect(again[BUDGET]).to.equal(429);
  });
});
