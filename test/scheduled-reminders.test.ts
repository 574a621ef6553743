import { expect } from 'chai';
import type { LoopContext } from '../services/information-common.ts';
import { remindForStep } from '../services/information-sending.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { addContact, contextOf, PUBLIC_URL, quarterRequest, sentRequest } from './helpers/information.ts';
import { TestClock } from './helpers/server.ts';

for (const dialect of dialects) {
  describe(`reminders of a request's schedule, as the scheduled pass sends them (${dialect.name}) @db`, function () {
    this.timeout(30000);
    let t: TestDb;
    let fx: Fixture;
    let ctx: LoopContext;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    let request: string;
    let reports: Map<string, string>;

    const remind = async (days: number, date: string) => {
      const firm = (await fx.repos.firms.get(fx.firmA.id))!;
      return remindForStep(
        { repos: fx.repos, publicUrl: PUBLIC_URL },
        firm,
        request,
        { days, date },
        clock.now(),
      );
    };
    const links = async () => Number((await t.db('information_report_links').count({ n: '*' }).first())!.n);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ctx = await contextOf(fx.repos, clock, fx.editor.user.email);
      await addContact(ctx, fx.companies.acme.id, 'Ada Founder', 'ada@acme.example');
      await addContact(ctx, fx.companies.acme.id, 'Bob Finance', 'bob@acme.example');
      await addContact(ctx, fx.companies.beta.id, 'Cy Beta', 'cy@beta.example');
      const sent = await sentRequest(ctx, quarterRequest([fx.companies.acme.id, fx.companies.beta.id]));
      request = sent.id;
      reports = sent.reportOf;
    });
    after(async () => {
      await t?.drop();
    });

    it('reminds every contact of the unsubmitted reports once per step, recorded as the service itself', async () => {
      clock.set(new Date('2026-01-24T08:00:00.000Z'));
      const before = await links();
      expect(await remind(-7, '2026-01-24')).to.equal(3);
      expect(await links()).to.equal(before + 3);
      const events = await fx.repos.events.list(fx.firmA.id, {
        types: ['information_report.reminded'],
        limit: 10,
      });
      expect(events.map((e) => [e.company_id, e.actor_type])).to.have.deep.members([
        [fx.companies.acme.id, 'system'],
        [fx.companies.beta.id, 'system'],
      ]);
      // A later pass within the same step sends nothing and makes no link.
      clock.set(new Date('2026-01-25T08:00:00.000Z'));
      expect(await remind(-7, '2026-01-24')).to.equal(0);
      expect(await links()).to.equal(before + 3);
    });

    it('leaves out the reports submitted since, and a closed request', async () => {
      await t
        .db('information_reports')
        .where('id', reports.get(fx.companies.beta.id))
        .update({ submitted_at: '2026-01-30T10:00:00.000Z', status: 'completed' });
      clock.set(new Date('2026-01-31T08:00:00.000Z'));
      expect(await remind(0, '2026-01-31')).to.equal(2);
      const acme = await t.db('information_reports').where('id', reports.get(fx.companies.acme.id)).first();
      expect(acme.reminded_at).to.equal('2026-01-31T08:00:00.000Z');
      await t.db('information_requests').where('id', request).update({ status: 'closed' });
      clock.set(new Date('2026-02-07T08:00:00.000Z'));
      expect(await remind(7, '2026-02-07')).to.equal(0);
    });
  });
}
