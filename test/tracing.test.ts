import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT', function () {
  this.timeout(120_000);
  let t: TestDb;
  let collector: Server;
  let server: ChildServer | undefined;
  const posts: { path: string; body: string }[] = [];

  before(async () => {
    t = await sqliteTestDb();
    // A stand-in OTLP/HTTP collector that records what it receives.
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        posts.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
  });
  after(async () => {
    await server?.kill();
    collector?.close();
    await t?.drop();
  });

  it('sends HTTP, Express and knex spans to the collector', async () => {
    const port = (collector.address() as AddressInfo).port;
    server = await spawnServer(
      t.url,
      { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '100' },
      90_000,
    );
    expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
    const names = () => posts.flatMap((p) => [...p.body.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]));
    const deadline = Date.now() + 10_000;
    while (!names().includes('GET /readyz') && Date.now() < deadline) await delay(100);
    expect(posts.every((p) => p.path === '/v1/traces')).to.equal(true);
    const seen = names();
    expect(seen).to.include('GET /readyz');
    expect(seen).to.include('@opentelemetry/instrumentation-express');
    expect(seen).to.include('@opentelemetry/instrumentation-knex');
  });
});
