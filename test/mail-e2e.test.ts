import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { verifyFounderLink } from '../services/founder-links.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { waitFor } from './helpers/processes.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';

for (const dialect of dialects) {
  describe(`a request and its reminder reach the founder by SMTP (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let smtp: TestSmtp;
    let server: RunningServer;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    const rest = (path: string, method = 'GET', body?: unknown) =>
      api(server.url, path, { token: fx.editor.rest, method, body });

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      smtp = await startSmtp();
      server = await startTestServer(t.db, {
        clock,
        env: {
          SMTP_URL: smtp.url,
          MAIL_FROM: 'Alpha Partners <reports@alpha.example>',
          MAIL_DELIVERY: 'on',
          MAIL_POLL_INTERVAL_SECONDS: '0.05',
          REMINDERS: 'on',
          REMINDERS_INTERVAL_SECONDS: '0.1',
        },
      });
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
      await t?.drop();
    });

    it('sends the request mail when the request is sent over REST, with a working link, and scrubs the stored copy', async () => {
      const acme = fx.companies.acme.id;
      const contact = await rest(`/v1/companies/${acme}/contacts/`, 'POST', {
        name: 'Ada Founder',
        email: 'ada@acme.example',
      });
      expect(contact.status).to.equal(201);
      const draft = await rest('/v1/information-requests/', 'POST', {
        name: 'Q4 2025 update',
        period: '2025-Q4',
        period_start_date: '2025-10-01',
        period_end_date: '2025-12-31',
        due_date: '2026-01-31',
        company_ids: [acme],
        metrics: [{ category: 'revenue' }, { category: 'cash_in_bank', optional: true }],
        documents: [{ name: 'Board deck' }],
        reminder_days: [-7],
      });
      expect(draft.status, JSON.stringify(draft.body)).to.equal(201);
      expect((await rest(`/v1/information-requests/${draft.body.id}/send/`, 'POST')).status).to.equal(200);

      await waitFor('the request mail', () => (smtp.received.length > 0 ? true : undefined));
      const { parsed, to } = smtp.received[0]!;
      expect(to).to.deep.equal(['ada@acme.example']);
      expect(parsed.subject).to.equal('Q4 2025 update for Alpha Partners: due 31 January 2026');
      expect(parsed.from?.value).to.deep.equal([
        { name: 'Alpha Partners', address: 'reports@alpha.example' },
      ]);
      const link = /https?:\/\/\S+\/respond\/(frl_[\w-]+)/.exec(parsed.text ?? '');
      expect(link, parsed.text).to.not.equal(null);
      expect(parsed.html).to.contain(`href="${link![0]}"`);
      const session = await verifyFounderLink({ repos: fx.repos, clock }, link![1]!);
      expect(session.company.id).to.equal(acme);
      const stored = await waitFor('the message to be recorded sent', async () => {
        const row = await t.db('outbound_mail').where({ kind: 'request' }).first();
        return row?.status === 'sent' ? row : undefined;
      });
      expect(stored.link).to.equal(null);
      expect(`${stored.text_body}${stored.html_body}`).to.not.contain(link![1]);
    });

    it('sends the scheduled reminder once its day comes, once', async () => {
      clock.set(new Date('2026-01-24T08:00:00.000Z'));
      await waitFor('the reminder', () => (smtp.received.length > 1 ? true : undefined));
      const reminder = smtp.received[1]!.parsed;
      expect(reminder.subject).to.equal('Reminder: Q4 2025 update for Alpha Partners is due 31 January 2026');
      const link = /\/respond\/(frl_[\w-]+)/.exec(reminder.text ?? '')![1]!;
      expect((await verifyFounderLink({ repos: fx.repos, clock }, link)).company.id).to.equal(
        fx.companies.acme.id,
      );
      // Several passes later, still one reminder.
      await new Promise((r) => setTimeout(r, 500));
      expect(smtp.received).to.have.length(2);
    });
  });
}
