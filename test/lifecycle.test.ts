import { once } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';

async function status(url: string): Promise<number> {
  return (await fetch(url)).status;
}

/** Polls until `path` answers `expected`, or fails after `ms`. */
async function until(url: string, expected: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await status(url)) === expected) return;
    await delay(25);
  }
  throw new Error(`${url} did not answer ${expected} within ${ms} ms`);
}

describe('shutdown', function () {
  this.timeout(60_000);
  let t: TestDb;
  let server: ChildServer | undefined;

  beforeEach(async () => {
    t = await sqliteTestDb();
  });
  afterEach(async () => {
    await server?.kill();
    server = undefined;
    await t.drop();
  });

  it('answers /readyz 503 as soon as SIGTERM arrives, finishes a request in flight, then exits 0', async () => {
    server = await spawnServer(t.url, { SHUTDOWN_DRAIN_SECONDS: '1' });
    expect(await status(`${server.url}/readyz`)).to.equal(200);

    // A request whose body is still arriving when the signal comes.
    const inFlight = request(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    });
    const answered = once(inFlight, 'response');
    inFlight.write('{"jsonrpc":"2.0","id":1,');
    await delay(100);

    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await until(`${server.url}/readyz`, 503, 1000);
    expect(await status(`${server.url}/healthz`)).to.equal(200);

    // Past the drain, the server has stopped listening but still owes this request its answer.
    await delay(1500);
    inFlight.end('"method":"tools/list"}');
    const [res] = (await answered) as [IncomingMessage];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    expect(res.statusCode).to.equal(401);
    expect(JSON.parse(body)).to.include({ code: 'unauthenticated' });

    const [code] = await exited;
    expect(code, server.stderr()).to.equal(0);
  });

  it('exits at once on a second SIGTERM while draining', async () => {
    server = await spawnServer(t.url, { SHUTDOWN_DRAIN_SECONDS: '60' });
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await until(`${server.url}/readyz`, 503, 1000);
    const sent = Date.now();
    server.child.kill('SIGTERM');
    const [, signal] = await exited;
    expect(signal).to.equal('SIGTERM');
    expect(Date.now() - sent).to.be.below(2000);
  });
});
