import type { Knex } from 'knex';
import { kept } from '../db/kept.ts';
import { onRead } from '../db/prepared.ts';

/**
 * Checks at start-up that the exact versions of the libraries the fast paths rely on still behave as
 * this code expects, so that an upgrade that changes them stops the service with a clear message
 * rather than answering wrongly: a kept read runs as a prepared statement of the driver (better-sqlite3
 * `prepare()`, pg's named queries) with each call's own values, and the MCP SDK's server answers an
 * initialize. A few milliseconds.
 */
export async function selfTest(db: Knex): Promise<void> {
  await step('prepared reads', () => preparedRoundTrip(db));
  await step('MCP initialize', mcpInitialize);
}

async function step(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    throw new Error(
      `start-up self-test failed (${name}): ${(err as Error).message}; the installed knex, pg, ` +
        'better-sqlite3 or @modelcontextprotocol/sdk differ from the versions package.json pins (run npm ci)',
    );
  }
}

const echo = kept((db, p: { v: string }) => db.select(db.raw('? as v', [p.v])));

async function preparedRoundTrip(db: Knex): Promise<void> {
  let prepared = 0;
  const stop = onRead(db, () => {
    prepared++;
  });
  try {
    for (const v of ['first', 'second', 'first']) {
      const row = await echo.first<{ v: unknown }>(db, { v });
      if (row?.v !== v)
        throw new Error(`a kept read of ${JSON.stringify(v)} answered ${JSON.stringify(row)}`);
    }
  } finally {
    stop();
  }
  if (prepared !== 3) throw new Error(`${prepared} of 3 kept reads ran as prepared statements`);
}

async function mcpInitialize(): Promise<void> {
  const [{ Server }, { Client }, { InMemoryTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/inMemory.js'),
  ]);
  const server = new Server({ name: 'self-test', version: '1' }, { capabilities: { tools: {} } });
  const client = new Client({ name: 'self-test-client', version: '1' });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    const info = client.getServerVersion();
    if (info?.name !== 'self-test' || !client.getServerCapabilities()?.tools)
      throw new Error(`the server answered initialize with ${JSON.stringify(info)}`);
  } finally {
    await client.close();
    await server.close();
  }
}
