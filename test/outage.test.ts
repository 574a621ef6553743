import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrateLatest, openDb } from '../db/knex.ts';
import type { RunningServer } from '../server/http.ts';
import { api, startTestServer } from './helpers/server.ts';
import { buildWorld, mcpCall, type World } from './helpers/world.ts';

// A database outage: a private PostgreSQL cluster (never the shared one) is stopped with
// `pg_ctl stop -m immediate` under light load and started again. While it is down every request that
// needs it answers 503 problem+json (service_unavailable, Retry-After) quickly and /readyz says 503;
// when it is back the same server process recovers on its own. Skipped when the PostgreSQL server
// binaries (or, as root, the postgres user) are missing.

/** The newest installed PostgreSQL server binaries, or undefined. */
function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throwaway cluster in a temporary directory; as root, run as the postgres user (initdb refuses root). */
class PrivateCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'pds-outage-'));
  readonly data = join(this.dir, 'data');
  private readonly asRoot = process.getuid?.() === 0;

  constructor(
    private readonly bin: string,
    readonly port: number,
  ) {
    if (this.asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(this.dir, uid, gid);
    }
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private run(tool: string, args: string[]): void {
    const command = join(this.bin, tool);
    if (this.asRoot) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
    else execFileSync(command, args, { stdio: 'pipe' });
  }

  init(): void {
    this.run('initdb', ['-D', this.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  }

  start(): void {
    const options = `-k ${this.dir} -p ${this.port} -c listen_addresses=127.0.0.1 -c fsync=off`;
    this.run('pg_ctl', [
      '-D',
      this.data,
      '-l',
      join(this.dir, 'log'),
      '-o',
      options,
      '-w',
      '-t',
      '30',
      'start',
    ]);
  }

  stop(mode: 'immediate' | 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', 'stop']);
  }

  remove(): void {
    try {
      this.stop('immediate');
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** As root the cluster runs as the postgres user, so that user must exist. */
function hasPostgresUser(): boolean {
  if (process.getuid?.() !== 0) return true;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const bin = hasPostgresUser() ? postgresBin() : undefined;

describe('database outage: a PostgreSQL stopped and started under load (private cluster) @db', function () {
  this.timeout(120_000);
  let cluster: PrivateCluster | undefined;
  let db: Knex;
  let w: World;
  let server: RunningServer;
  const statuses = new Map<string, number>();
  let knexWarnings = 0;

  before(async function () {
    if (!bin) {
      this.skip();
      return;
    }
    cluster = new PrivateCluster(bin, await freePort());
    cluster.init();
    cluster.start();
    db = openDb(cluster.url);
    // knex prints every failed connection attempt to stdout; keep them out of the test output, counted.
    (db.client as { logger: { _warn?: (message: string) => void } }).logger._warn = () => {
      knexWarnings += 1;
    };
    await migrateLatest(db);
    w = await buildWorld(db);
    server = await startTestServer(db, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  });
  after(async () => {
    if (statuses.size) {
      const summary = [...statuses].map(([k, n]) => `${n}× ${k}`).join(', ');
      console.log(`      outage: ${summary}; knex logged ${knexWarnings} connection warnings`);
    }
    await server?.close();
    await db?.destroy();
    cluster?.remove();
  });

  it('answers 503 service_unavailable with Retry-After while the database is down, and recovers without a restart', async () => {
    const token = w.roles.admin.rest;
    let phase: 'up' | 'down' | 'back' = 'up';
    let stopLoad = false;
    const record = (status: number) => {
      const key = `${status} (${phase})`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    };

    // Light load: a few clients reading and writing the whole time; only 200 and 503 are acceptable.
    const requests = [
      () => api(server.url, '/v1/companies/', { token }),
      () => api(server.url, `/v1/metrics/?company_id=${w.own.company}`, { token }),
      () =>
        api(server.url, `/v1/metrics/${w.own.datum}/`, {
          token,
          method: 'PATCH',
          body: { comments: [{ content: `under load ${Date.now()}` }] },
        }),
    ];
    const load = Array.from({ length: 3 }, async (_, i) => {
      while (!stopLoad) {
        const res = await requests[i]!();
        record(res.status);
        expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 503]);
        await sleep(25);
      }
    });

    await sleep(300);
    cluster!.stop('immediate');
    phase = 'down';

    // Every request that needs the database fails fast with 503 problem+json; the process is up.
    for (const path of [
      '/v1/companies/',
      `/v1/companies/${w.own.company}/`,
      `/v1/metrics/?company_id=${w.own.company}`,
    ]) {
      const started = Date.now();
      const res = await api(server.url, path, { token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body.code).to.equal('service_unavailable');
      expect(res.body.status).to.equal(503);
      expect(res.body.detail).to.be.a('string').that.is.not.empty;
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(Date.now() - started, `${path} took too long to fail`).to.be.below(6000);
    }
    const patch = await api(server.url, `/v1/metrics/${w.own.datum}/`, {
      token,
      method: 'PATCH',
      body: { comments: [{ content: 'while down' }] },
    });
    expect(patch.status).to.equal(503);
    expect(patch.body.code).to.equal('service_unavailable');
    const mcp = await mcpCall(server.url, w.roles.admin.pat, 'list_companies', {});
    expect(mcp.status).to.equal(503);
    expect(mcp.contentType).to.match(/^application\/problem\+json/);
    expect((await api(server.url, '/readyz')).status).to.equal(503);
    expect((await api(server.url, '/healthz')).status).to.equal(200);
    await sleep(500);

    cluster!.start();
    phase = 'back';

    // The same process recovers on its own: /readyz, reads, writes and MCP work again.
    const deadline = Date.now() + 20_000;
    while ((await api(server.url, '/readyz')).status !== 200) {
      expect(Date.now(), 'the service did not recover within 20 s').to.be.below(deadline);
      await sleep(100);
    }
    stopLoad = true;
    await Promise.all(load);
    expect((await api(server.url, '/v1/companies/', { token })).status).to.equal(200);
    const after = await api(server.url, `/v1/metrics/${w.own.datum}/`, {
      token,
      method: 'PATCH',
      body: { comments: [{ content: 'after the outage' }] },
    });
    expect(after.status).to.equal(200);
    expect(after.body.comments.map((c: { content: string }) => c.content)).to.include('after the outage');
    expect(
      (await mcpCall(server.url, w.roles.admin.pat, 'list_companies', {})).body?.result?.isError,
    ).to.not.equal(true);
    expect([...statuses.keys()].some((k) => k.startsWith('503'))).to.equal(true);
  });
});
