import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { hostname } from 'node:os';
import { expect } from 'chai';
import { McpClientsStore } from '../auth/mcp-oauth/clients-store.ts';
import type { Resolve } from '../auth/mcp-oauth/document-fetch.ts';
import { isPublicAddress } from '../core/public-address.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { pkce, WebClient } from './helpers/oauth.ts';
import { startTestServer, TestClock } from './helpers/server.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** A TCP listener that only counts the connections made to it. */
async function connectionCounter() {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A resolver that answers `addresses` for every name and records the names asked. */
function resolverTo(...addresses: string[]): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

describe('SSRF through client metadata documents', () => {
  let t: TestDb;
  let fx: Fixture;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    await t?.drop();
  });

  function store(options: { resolve?: Resolve; loopback?: boolean; timeoutMs?: number } = {}) {
    return new McpClientsStore({
      repos: fx.repos,
      clock: new TestClock(),
      logger: createLogger('silent'),
      allowLoopbackMetadataUrls: () => options.loopback ?? false,
      resolve: options.resolve,
      fetchTimeoutMs: options.timeoutMs,
    });
  }

  it('counts loopback, private, link-local, CGNAT, reserved, documentation and multicast addresses as non-public', () => {
    const refused = [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '0.1.2.3',
      '192.0.0.8',
      '192.0.2.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:a00:1',
      '::ffff:169.254.169.254',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1',
      '2002:7f00:1::1',
      '2002:a00:1::',
      '2001::1',
      '2001:2::1',
      '2001:db8::1',
      '3fff::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'fec0::1',
      'ff02::1',
      '::127.0.0.1',
      'not an address',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).to.equal(false);
    const accepted = [
      '8.8.8.8',
      '1.1.1.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
    ];
    for (const address of accepted) expect(isPublicAddress(address), address).to.equal(true);
  });

  it('counts an IPv6 address carrying a non-public IPv4 address as non-public, in any notation', () => {
    const refused = [
      '::ffff:a00:1', // mapped 10.0.0.1, hexadecimal
      '0:0:0:0:0:ffff:192.168.1.1',
      '::ffff:0:10.0.0.1', // IPv4-translated (RFC 6145)
      '::ffff:0:8.8.8.8',
      '64:ff9b::10.0.0.1', // NAT64
      '64:ff9b::c0a8:101',
      '64:ff9b::6440:1', // NAT64 to carrier-grade NAT
      '2002:c0a8:101::1', // 6to4 around 192.168.1.1
      '2002:a9fe:a9fe::1', // 6to4 around the metadata service
      '2002:7f00:1:0:0:0:0:1',
      '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo, client 10.0.0.1
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, client 8.8.8.8: every Teredo address is refused
      '2606:4700:4700::1111%eth0',
      '192.175.48.1', // AS112
      '2001:3::1', // AMT
      '5f00::1', // segment routing
      '100::1', // discard
      '127.1',
      '0x7f.0.0.1',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).to.equal(false);
    for (const address of ['::ffff:808:808', '64:ff9b::808:808', '2002:0808:0404::1', '2a00:1450::1'])
      expect(isPublicAddress(address), address).to.equal(true);
  });

  it('does not take a URL on a local name or non-public address literal for a metadata document', () => {
    const s = store();
    for (const host of [
      'localhost',
      'metadata.internal',
      '10.0.0.1',
      '169.254.169.254',
      '[fd00::1]',
      '[::ffff:10.0.0.1]',
      '[64:ff9b::a00:1]',
      '[2002:a00:1::1]',
      '198.51.100.7',
    ])
      expect(s.isMetadataUrl(`https://${host}/client.json`), host).to.equal(false);
    expect(s.isMetadataUrl('https://93.184.215.14/client.json')).to.equal(true);
    expect(s.isMetadataUrl('https://client.example/client.json')).to.equal(true);
  });

  it('never connects to a host name that resolves to a loopback address', async () => {
    const target = await connectionCounter();
    try {
      const resolve = resolverTo('127.0.0.1');
      const client = await store({ resolve }).getClient(
        `https://metadata.example:${target.port}/client.json`,
      );
      expect(client).to.equal(undefined);
      expect(resolve.asked).to.deep.equal(['metadata.example']);
      expect(target.connections()).to.equal(0);
    } finally {
      await target.close();
    }
  });

  it('refuses a host name when any of its addresses is private, mapped or NAT64 to a private one', async () => {
    for (const addresses of [
      ['93.184.215.14', '10.0.0.7'],
      ['169.254.169.254'],
      ['100.100.100.200'],
      ['::ffff:127.0.0.1'],
      ['::ffff:10.1.1.1'],
      ['64:ff9b::7f00:1'],
      ['64:ff9b::a9fe:a9fe'],
      ['fd00::1'],
      ['fe80::1'],
    ]) {
      const resolve = resolverTo(...addresses);
      const client = await store({ resolve }).getClient(`https://cimd-${addresses.length}.example/c.json`);
      expect(client, addresses.join(' ')).to.equal(undefined);
      expect(resolve.asked.length, addresses.join(' ')).to.equal(1);
    }
  });

  describe('with the loopback escape hatch, against a local document server', () => {
    let documents: Server;
    let port: number;
    const routes = new Map<string, (res: import('node:http').ServerResponse) => void>();
    let requests = 0;

    before(async () => {
      documents = createHttpServer((req, res) => {
        requests++;
        const route = routes.get(req.url ?? '');
        if (route) route(res);
        else res.writeHead(404).end();
      });
      documents.listen(0, '127.0.0.1');
      await once(documents, 'listening');
      port = (documents.address() as AddressInfo).port;
    });
    after(async () => {
      documents.closeAllConnections();
      await new Promise<void>((resolve) => documents.close(() => resolve()));
    });

    const url = (path: string) => `http://localhost:${port}${path}`;
    const serveJson = (path: string, body: unknown) =>
      routes.set(path, (res) =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body)),
      );

    it('connects to the address it checked, resolving the name only once', async () => {
      serveJson('/good.json', { client_id: url('/good.json'), redirect_uris: [REDIRECT] });
      const answers = ['127.0.0.1', '10.9.9.9'];
      const asked: string[] = [];
      const resolve: Resolve = async (name) => {
        asked.push(name);
        const address = answers.shift() ?? '10.9.9.9';
        return [{ address, family: 4 }];
      };
      const client = await store({ resolve, loopback: true }).getClient(url('/good.json'));
      expect(client?.client_id).to.equal(url('/good.json'));
      expect(asked).to.deep.equal(['localhost']);
    });

    it('still refuses private addresses other than loopback', async () => {
      serveJson('/private.json', { client_id: url('/private.json'), redirect_uris: [REDIRECT] });
      const before = requests;
      const client = await store({ resolve: resolverTo('192.168.0.10'), loopback: true }).getClient(
        url('/private.json'),
      );
      expect(client).to.equal(undefined);
      expect(requests).to.equal(before);
    });

    it('refuses a document over 64 KiB sent without a Content-Length', async () => {
      routes.set('/big.json', (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const padding = 'x'.repeat(1024);
        res.write(`{"client_id":"${url('/big.json')}","redirect_uris":["${REDIRECT}"],"client_name":"`);
        for (let i = 0; i < 80; i++) res.write(padding);
        res.end('"}');
      });
      const client = await store({ resolve: resolverTo('127.0.0.1'), loopback: true }).getClient(
        url('/big.json'),
      );
      expect(client).to.equal(undefined);
    });

    it('refuses a document whose redirect URI is not a valid URI by RFC 3986', async () => {
      serveJson('/quoted.json', {
        client_id: url('/quoted.json'),
        redirect_uris: ['http://127.0.0.1:9/cb"><script>alert(1)</script>'],
      });
      const client = await store({ resolve: resolverTo('127.0.0.1'), loopback: true }).getClient(
        url('/quoted.json'),
      );
      expect(client).to.equal(undefined);
    });

    it('refuses to follow a redirect', async () => {
      serveJson('/target.json', { client_id: url('/moved.json'), redirect_uris: [REDIRECT] });
      routes.set('/moved.json', (res) => res.writeHead(302, { Location: url('/target.json') }).end());
      const before = requests;
      const client = await store({ resolve: resolverTo('127.0.0.1'), loopback: true }).getClient(
        url('/moved.json'),
      );
      expect(client).to.equal(undefined);
      expect(requests - before).to.equal(1);
    });

    it('gives up on a document that does not arrive within the total timeout', async () => {
      routes.set('/slow.json', (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"client_id":');
        // Never ends: a trickle that would keep a per-read timeout alive.
      });
      const started = Date.now();
      const client = await store({
        resolve: resolverTo('127.0.0.1'),
        loopback: true,
        timeoutMs: 300,
      }).getClient(url('/slow.json'));
      expect(client).to.equal(undefined);
      expect(Date.now() - started).to.be.below(2000);
    });

    it('remembers a failed fetch for a while instead of fetching again', async () => {
      routes.set('/broken.json', (res) => res.writeHead(500).end());
      const shared = store({ resolve: resolverTo('127.0.0.1'), loopback: true });
      const before = requests;
      expect(await shared.getClient(url('/broken.json'))).to.equal(undefined);
      expect(await shared.getClient(url('/broken.json'))).to.equal(undefined);
      expect(requests - before).to.equal(1);
    });
  });

  describe('through the real server', () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer(t.db, { env: { TRUST_PROXY: 'true' } });
    });
    after(async () => server?.close());

    function authorizeWith(clientId: string, address: string) {
      const { challenge } = pkce();
      return new WebClient(server.url, { 'X-Forwarded-For': address }).get(
        `/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        })}`,
      );
    }

    it('does not connect, without sign-in, to a public-looking host name that resolves to loopback', async function () {
      // The machine's own name resolves to a loopback address on most hosts; elsewhere there is nothing to show.
      const name = hostname();
      const addresses = await lookup(name, { all: true }).catch(() => []);
      if (!addresses.some((a) => a.address.startsWith('127.') || a.address === '::1')) this.skip();
      const target = await connectionCounter();
      try {
        const res = await authorizeWith(`https://${name}:${target.port}/client.json`, '198.51.100.1');
        expect(res.status).to.equal(400);
        expect(target.connections()).to.equal(0);
      } finally {
        await target.close();
      }
    });

    it('answers 429 once one address has made the server fetch 20 metadata documents in a minute', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++)
        statuses.push((await authorizeWith(`https://cimd-${i}.invalid/client.json`, '198.51.100.2')).status);
      expect(statuses.slice(0, 20).every((s) => s === 400)).to.equal(true);
      expect(statuses[20]).to.equal(429);
      expect((await authorizeWith('https://cimd-x.invalid/client.json', '198.51.100.3')).status).to.equal(
        400,
      );
    });
  });
});
