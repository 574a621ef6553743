import { expect } from 'chai';
import { tokenHash } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

// Each node keeps the principals it resolved recently and checks them per request against the
// database's authentication counter. These tests run two nodes over one database (this process and a
// server process) and change who a token is behind both of their backs, the way the command line or
// another node would: the next request on either node must see it.

for (const dialect of dialects) {
  describe(`cached principals on two nodes over one database (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let nodeA: RunningServer;
    let nodeB: ChildServer;
    let nodes: string[];
    const clock = new TestClock(new Date('2026-06-01T00:00:00.000Z'));

    const version = async () =>
      Number(
        ((await t.db('auth_version').where({ id: 1 }).first('version')) as { version: unknown }).version,
      );

    /** The names of the companies a token sees on one node, or its status when refused. */
    async function companiesSeen(node: string, token: string): Promise<string[] | number> {
      const res = await api(node, '/v1/companies/?page_size=100', { token });
      if (res.status !== 200) return res.status;
      return (res.body.results as { name: string }[]).map((c) => c.name).sort();
    }

    /** Uses the token on both nodes twice, so both hold it resolved, and returns what it saw. */
    async function warm(token: string): Promise<string[]> {
      const seen: (string[] | number)[] = [];
      for (const node of [...nodes, ...nodes]) seen.push(await companiesSeen(node, token));
      for (const s of seen) expect(s).to.deep.equal(seen[0]);
      expect(seen[0]).to.be.an('array');
      return seen[0] as string[];
    }

    const everywhere = (token: string) => Promise.all(nodes.map((node) => companiesSeen(node, token)));

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      nodeA = await startTestServer(t.db, { clock, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
      nodeB = await spawnServer(t.url);
      nodes = [nodeA.url, nodeB.url];
    });
    after(async () => {
      await nodeB?.stop();
      await nodeA?.close();
      await t?.drop();
    });

    it('refuses a revoked token on the next request on every node that had it cached', async () => {
      const token = await issueToken(fx.repos, fx.viewer.user);
      await warm(token);
      const row = await fx.repos.tokens.findByHash(tokenHash(token));
      expect(await fx.repos.tokens.revoke(row!.id, new Date().toISOString())).to.equal(true);
      expect(await everywhere(token)).to.deep.equal([401, 401]);
    });

    it('refuses every token of a deactivated user at once, and serves them again when reactivated', async () => {
      const token = await issueToken(fx.repos, fx.editor.user);
      const before = await warm(token);
      await fx.repos.users.setActive(fx.editor.user.id, false);
      expect(await everywhere(token)).to.deep.equal([401, 401]);
      await fx.repos.users.setActive(fx.editor.user.id, true);
      expect(await everywhere(token)).to.deep.equal([before, before]);
    });

    it("shows a company added to or removed from a user's list on the next request on both nodes", async () => {
      const token = await issueToken(fx.repos, fx.restricted.user);
      const { acme, beta } = fx.companies;
      expect(await warm(token)).to.deep.equal([acme.name]);
      await fx.repos.users.grantCompany(fx.restricted.user.id, beta.id);
      const both = [acme.name, beta.name].sort();
      expect(await everywhere(token)).to.deep.equal([both, both]);
      await t.db('user_companies').where({ user_id: fx.restricted.user.id, company_id: beta.id }).delete();
      expect(await everywhere(token)).to.deep.equal([[acme.name], [acme.name]]);
    });

    it('refuses a cached token once its expiry passes, without any change in the database', async () => {
      const token = await issueToken(fx.repos, fx.viewer.user, { expiresAt: '2026-06-01T00:05:00.000Z' });
      expect(await companiesSeen(nodeA.url, token)).to.be.an('array');
      expect(await companiesSeen(nodeA.url, token)).to.be.an('array');
      clock.advance(5 * 60_000);
      expect(await companiesSeen(nodeA.url, token)).to.equal(401);
    });

    it('keeps the counter still while tokens are only used, and moves it for every change that matters', async () => {
      const token = await issueToken(fx.repos, fx.admin.user);
      const start = await version();
      // Every use stamps last_used_at (at most once a minute): that must not empty the caches.
      clock.advance(2 * 60_000);
      await warm(token);
      clock.advance(2 * 60_000);
      await warm(token);
      expect(await version()).to.equal(start);

      const grant = {
        id: newId(),
        client_id: 'https://client.example/metadata.json',
        user_id: fx.viewer.user.id,
        firm_id: fx.firmA.id,
        resource: `${nodeA.url}/mcp`,
        scope: 'read',
        created_at: '2026-06-01T00:00:00.000Z',
        expires_at: '2026-07-01T00:00:00.000Z',
        last_used_at: null,
        revoked_at: null,
      };
      await t.db('mcp_grants').insert(grant);
      const changes: [string, () => Promise<unknown>][] = [
        [
          'a sign-in used',
          () => t.db('mcp_grants').where({ id: grant.id }).update({ last_used_at: '2026-06-01T00:01:00Z' }),
        ],
        [
          'a sign-in revoked',
          () => t.db('mcp_grants').where({ id: grant.id }).update({ revoked_at: '2026-06-01T00:02:00Z' }),
        ],
        [
          'a user’s role changed',
          () => t.db('users').where({ id: fx.viewer.user.id }).update({ role: 'viewer' }),
        ],
        [
          'a firm’s feature flags changed',
          () => t.db('firms').where({ id: fx.firmA.id }).update({ enabled_feature_flags: '' }),
        ],
        [
          'a token deleted',
          () =>
            t
              .db('access_tokens')
              .where({ token_hash: tokenHash(token) })
              .delete(),
        ],
        ['a sign-in deleted', () => t.db('mcp_grants').where({ id: grant.id }).delete()],
        ['nothing deleted', () => t.db('access_tokens').where({ id: 'none' }).delete()],
      ];
      const moved: Record<string, boolean> = {};
      for (const [name, change] of changes) {
        const before = await version();
        await change();
        moved[name] = (await version()) > before;
      }
      expect(moved).to.deep.equal({
        'a sign-in used': false,
        'a sign-in revoked': true,
        'a user’s role changed': true,
        'a firm’s feature flags changed': true,
        'a token deleted': true,
        'a sign-in deleted': true,
        // PostgreSQL moves it only for deletes that removed a row; SQLite's row triggers likewise.
        'nothing deleted': false,
      });
    });
  });
}
