import { expect } from 'chai';
import type { Logger } from '../core/logger.ts';
import { openDb } from '../db/knex.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import type { MailRow } from '../db/repos/mail.ts';
import { founderContext, verifyFounderLink } from '../services/founder-links.ts';
import type { LoopContext } from '../services/information-common.ts';
import { informationReminders } from '../services/information-reminders.ts';
import { type SaveContext, saveReport } from '../services/information-reports.ts';
import { closeRequest } from '../services/information-requests.ts';
import { createReminderPass } from '../services/reminders.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { addContact, contextOf, PUBLIC_URL, quarterRequest, sentRequest } from './helpers/information.ts';
import { TestClock } from './helpers/server.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const SETTINGS = { publicUrl: PUBLIC_URL, founderLinkDaysAfterDue: 30 };

/** The pass as a node runs it, over `repos`. */
const passOver = (repos: Repos, clock: TestClock) =>
  createReminderPass({
    repos,
    clock,
    logger: quiet,
    intervalMs: 60_000,
    remindFirm: informationReminders(() => SETTINGS),
  });

for (const dialect of dialects) {
  describe(`reminders of information requests (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let ctx: LoopContext & SaveContext;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    const contacts: Record<string, string> = {};

    const mails = async (kind: string, requestId: string): Promise<MailRow[]> =>
      (await t.db('outbound_mail').where({ kind, request_id: requestId }).orderBy('dedupe_key')) as MailRow[];
    const lateEvents = async (requestId: string) =>
      (await t.db('events').where('type', 'information_report.late')).filter(
        (e) => JSON.parse(e.data).information_request_id === requestId,
      );

    /** A request to Acme (two contacts), Beta (one) and Gamma (none), due 2026-01-31, reminded at -7, 0 and 7 days. */
    async function newRequest(name: string) {
      clock.set(new Date('2026-01-05T12:00:00.000Z'));
      const companies = [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id];
      return sentRequest(ctx, quarterRequest(companies, { name }));
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ctx = await contextOf(fx.repos, clock, fx.editor.user.email);
      contacts.ada = (await addContact(ctx, fx.companies.acme.id, 'Ada Founder', 'ada@acme.example')).id;
      contacts.alan = (await addContact(ctx, fx.companies.acme.id, 'Alan Cofounder', 'alan@acme.example')).id;
      contacts.bea = (await addContact(ctx, fx.companies.beta.id, 'Bea Founder', 'bea@beta.example')).id;
    });
    after(() => t?.drop());

    it('queues the request mail to every contact when a request is sent', async () => {
      const { id, reportOf } = await newRequest('Q4 2025 update');
      const sent = await mails('request', id);
      expect(sent.map((m) => m.to_address).sort()).to.deep.equal([
        'ada@acme.example',
        'alan@acme.example',
        'bea@beta.example',
      ]);
      const ada = sent.find((m) => m.to_address === 'ada@acme.example')!;
      expect(ada).to.include({
        status: 'pending',
        report_id: reportOf.get(fx.companies.acme.id),
        to_name: 'Ada Founder',
      });
      expect(ada.subject).to.equal('Q4 2025 update for Alpha Partners: due 31 January 2026');
      expect(ada.text_body).to.contain(ada.link!).and.contain('Cash in bank (optional)');
      const session = await verifyFounderLink({ repos: fx.repos, clock }, ada.link!.split('/respond/')[1]!);
      expect(session.link.report_id).to.equal(reportOf.get(fx.companies.acme.id));
    });

    it('reminds each contact of every unsubmitted report once at each step, before, on and after the due date', async () => {
      const { id, reportOf } = await newRequest('Q4 2025 reminders');
      const pass = passOver(fx.repos, clock);
      const count = async () => (await mails('reminder', id)).length;
      clock.set(new Date('2026-01-23T09:00:00.000Z'));
      await pass.runOnce();
      expect(await count()).to.equal(0);
      clock.set(new Date('2026-01-24T09:00:00.000Z'));
      await pass.runOnce();
      expect(await count()).to.equal(3);
      await pass.runOnce();
      expect(await count(), 'a second pass on the same day').to.equal(3);
      const before = await mails('reminder', id);
      const acme = reportOf.get(fx.companies.acme.id)!;
      expect(before.map((m) => m.dedupe_key)).to.include(`reminder:${acme}:-7:${contacts.ada}`);
      expect(before[0]!.subject).to.equal(
        'Reminder: Q4 2025 reminders for Alpha Partners is due 31 January 2026',
      );
      // Every reminder carries a fresh link that opens its report.
      for (const m of before) {
        const session = await verifyFounderLink({ repos: fx.repos, clock }, m.link!.split('/respond/')[1]!);
        expect(session.link.report_id).to.equal(m.report_id);
      }

      // Beta answers: its founder is confirmed, and reminded no more.
      const beta = reportOf.get(fx.companies.beta.id)!;
      const betaLink = before.find((m) => m.report_id === beta)!.link!.split('/respond/')[1]!;
      const session = await verifyFounderLink({ repos: fx.repos, clock }, betaLink);
      const founder = {
        ...founderContext({ repos: fx.repos, clock }, session),
        documentStorageQuotaBytes: 1e8,
        publicUrl: PUBLIC_URL,
      };
      await saveReport(founder, session, {}, { submit: true });
      expect((await mails('confirmation', id)).map((m) => m.to_address)).to.deep.equal(['bea@beta.example']);

      clock.set(new Date('2026-01-31T09:00:00.000Z'));
      await pass.runOnce();
      expect(await count()).to.equal(5);
      clock.set(new Date('2026-02-07T09:00:00.000Z'));
      await pass.runOnce();
      expect(await count()).to.equal(7);
      const all = await mails('reminder', id);
      const subjects = all
        .filter((m) => m.report_id === acme && m.to_address === 'ada@acme.example')
        .map((m) => m.subject);
      expect(subjects.sort()).to.deep.equal([
        'Due today: Q4 2025 reminders for Alpha Partners',
        'Overdue: Q4 2025 reminders for Alpha Partners (was due 31 January 2026)',
        'Reminder: Q4 2025 reminders for Alpha Partners is due 31 January 2026',
      ]);
      expect(all.filter((m) => m.report_id === beta)).to.have.length(1);
      const reminded = await t
        .db('events')
        .where({ type: 'information_report.reminded', actor_type: 'system' });
      expect(reminded.filter((e) => e.resource_id === acme)).to.have.length(3);
    });

    it('announces each late report once, those without contacts included', async () => {
      const { id, reportOf } = await newRequest('Q4 2025 lateness');
      const pass = passOver(fx.repos, clock);
      clock.set(new Date('2026-01-31T09:00:00.000Z'));
      await pass.runOnce();
      expect(await lateEvents(id)).to.deep.equal([]);
      clock.set(new Date('2026-02-01T09:00:00.000Z'));
      await pass.runOnce();
      await pass.runOnce();
      const late = (await lateEvents(id)).map((e) => e.resource_id).sort();
      expect(late).to.deep.equal([...reportOf.values()].sort());
    });

    it('reminds no one for a closed request, nor once a new link would have expired', async () => {
      const closed = await newRequest('Q4 2025 closed');
      await closeRequest(ctx, closed.id);
      const expired = await newRequest('Q4 2025 long past');
      const pass = passOver(fx.repos, clock);
      // 30 days after the due date, a link made now would be dead on arrival.
      clock.set(new Date('2026-03-03T09:00:00.000Z'));
      await pass.runOnce();
      expect(await mails('reminder', closed.id)).to.deep.equal([]);
      expect(await mails('reminder', expired.id)).to.deep.equal([]);
    });

    it('reminds no one when the request has no schedule', async () => {
      clock.set(new Date('2026-01-05T12:00:00.000Z'));
      const { id } = await sentRequest(
        ctx,
        quarterRequest([fx.companies.acme.id], { name: 'Q4 2025 unscheduled', reminder_days: [] }),
      );
      clock.set(new Date('2026-02-07T09:00:00.000Z'));
      await passOver(fx.repos, clock).runOnce();
      expect(await mails('reminder', id)).to.deep.equal([]);
    });

    // Several nodes share PostgreSQL; SQLite serves one node.
    const severalNodes = dialect.name === 'postgres' ? it : it.skip;
    severalNodes(
      'sends each reminder once, mints no spare link and announces each late report once with two nodes at the same moment',
      async () => {
        const { id } = await newRequest('Q4 2025 two nodes');
        const second = openDb(t.url);
        try {
          clock.set(new Date('2026-02-07T09:00:00.000Z'));
          const links = async () =>
            Number(
              (await t
                .db('information_report_links')
                .join('information_reports', 'information_reports.id', 'information_report_links.report_id')
                .where('information_reports.information_request_id', id)
                .count({ n: '*' })
                .first())!.n,
            );
          const linksBefore = await links();
          const nodes = [passOver(fx.repos, clock), passOver(createRepos(second), clock)];
          await Promise.all(nodes.map((n) => n.runOnce()));
          await Promise.all(nodes.map((n) => n.runOnce()));
          const reminders = await mails('reminder', id);
          expect(reminders.map((m) => m.to_address).sort()).to.deep.equal([
            'ada@acme.example',
            'alan@acme.example',
            'bea@beta.example',
          ]);
          expect(await links()).to.equal(linksBefore + 3);
          expect(await lateEvents(id)).to.have.length(3);
        } finally {
          await second.destroy();
        }
      },
    );
  });
}
