import { expect } from 'chai';
import {
  createApplication,
  createPersonalToken,
  revokeApplication,
  revokePersonalToken,
} from '../auth/accounts.ts';
import { systemClock } from '../core/clock.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';

for (const dialect of dialects) {
  describe(`credential writes are kept in the change log (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    const logOf = async (entityId: string) =>
      (
        (await t
          .db('change_log')
          .where({ entity_id: entityId })
          .orderBy('changed_at')
          .select('firm_id', 'entity', 'action', 'changed_by', 'changes')) as {
          firm_id: string;
          entity: string;
          action: string;
          changed_by: string | null;
          changes: string;
        }[]
      ).map((r) => ({ ...r, changes: JSON.parse(r.changes) as Record<string, unknown> }));

    it('logs a personal token made and revoked by its user, never the token itself', async () => {
      const actor = { type: 'user' as const, id: fx.editor.user.id, userId: fx.editor.user.id };
      const made = await createPersonalToken(
        fx.repos,
        systemClock,
        { email: fx.editor.user.email, name: 'laptop', days: 7 },
        actor,
      );
      await revokePersonalToken(fx.repos, systemClock, made.id, actor);
      const log = await logOf(made.id);
      expect(log.map((r) => [r.firm_id, r.entity, r.action, r.changed_by])).to.deep.equal([
        [fx.firmA.id, 'access_tokens', 'create', fx.editor.user.id],
        [fx.firmA.id, 'access_tokens', 'update', fx.editor.user.id],
      ]);
      expect(log[0]!.changes).to.include({ name: 'laptop' });
      expect(JSON.stringify(log)).to.not.include(made.token);
    });

    it('logs an application made and revoked from the command line without its secret', async () => {
      const app = await createApplication(fx.repos, systemClock, {
        firm: fx.firmA.slug,
        userEmail: fx.admin.user.email,
        name: 'reporting',
      });
      await revokeApplication(fx.repos, systemClock, app.client_id);
      const log = await logOf(app.id);
      expect(log.map((r) => [r.entity, r.action, r.changed_by])).to.deep.equal([
        ['oauth_applications', 'create', null],
        ['oauth_applications', 'update', null],
      ]);
      expect(JSON.stringify(log)).to.not.include(app.client_secret);
    });
  });
}
