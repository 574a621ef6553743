import { expect } from 'chai';
import type { Logger } from '../core/logger.ts';
import { SCRUBBED_LINK_NOTE } from '../core/mail-link.ts';
import { newId } from '../db/ids.ts';
import { openDb } from '../db/knex.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import type { MailRow } from '../db/repos/mail.ts';
import { type MailValues, requestMessage } from '../mail/templates.ts';
import { type MailSender, smtpSender } from '../mail/transport.ts';
import { createMailWorker, type MailOutcome } from '../mail/worker.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { TestClock } from './helpers/server.ts';
import { downSmtpUrl, SMTP_USER, startSmtp, type TestSmtp } from './helpers/smtp.ts';

const FROM = { name: 'Acorn Ventures', address: 'reports@acorn.example' };

interface LogLine {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, msg, fields });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

function values(link: string, extra: Partial<MailValues> = {}): MailValues {
  return {
    firmName: 'Acorn Ventures',
    companyName: 'Acme',
    contactName: 'Ada Founder',
    requestName: 'Q1 2026 update',
    period: 'quarter',
    dueDate: '2026-04-15',
    link,
    metrics: [
      { name: 'Revenue', optional: false },
      { name: 'Cash in bank', optional: true },
    ],
    documents: [{ name: 'Board deck', optional: true }],
    ...extra,
  };
}

/** Queues a request mail made by the template; answers the link it carries. */
async function queueRequest(repos: Repos, firmId: string, queuedAt: string, key = newId()): Promise<string> {
  const link = `https://pds.example.com/respond/frl_${key}`;
  await repos.mail.enqueue({
    firmId,
    kind: 'request',
    to: 'ada@acme.example',
    toName: 'Ada Founder',
    ...requestMessage(values(link)),
    dedupeKey: `request:${key}`,
    reportId: 'report-1',
    requestId: 'request-1',
    queuedAt,
  });
  return link;
}

async function rowOf(repos: Repos, link: string): Promise<MailRow> {
  const key = `request:${link.split('frl_')[1]}`;
  const row = await repos.db('outbound_mail').where('dedupe_key', key).first();
  return row as MailRow;
}

for (const dialect of dialects) {
  describe(`outbound mail delivery (${dialect.name}) @db`, function () {
    this.timeout(30_000);
    let t: TestDb;
    let repos: Repos;
    let firmId: string;
    let smtp: TestSmtp;
    const clock = new TestClock(new Date('2026-04-01T08:00:00.000Z'));
    const outcomes: MailOutcome[] = [];
    const logs: LogLine[] = [];

    function worker(sender: MailSender | undefined, extra: { maxAttempts?: number; repos?: Repos } = {}) {
      return createMailWorker({
        repo: (extra.repos ?? repos).mail,
        clock,
        logger: recordingLogger(logs),
        sender,
        pollMs: 50,
        leaseMs: 60_000,
        retryBaseSeconds: 30,
        maxAttempts: extra.maxAttempts ?? 3,
        onOutcome: (o, n) => {
          for (let i = 0; i < n; i++) outcomes.push(o);
        },
      });
    }
    const sender = (url: string) => smtpSender({ url, from: FROM, timeoutMs: 2000 });

    before(async () => {
      t = await dialect.open();
      repos = createRepos(t.db);
      firmId = newId();
      await repos.firms.create({
        id: firmId,
        slug: 'acorn',
        name: 'Acorn Ventures',
        preferred_currency: 'USD',
        country: 'US',
        city: 'Boston',
        enabled_feature_flags: '',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      smtp = await startSmtp();
    });
    after(async () => {
      await smtp.close();
      await t.drop();
    });
    beforeEach(async () => {
      // Each test starts from an empty outbox and a server that takes everything.
      await t.db('outbound_mail').delete();
      smtp.received.length = 0;
      smtp.setMode('accept');
      outcomes.length = 0;
      logs.length = 0;
    });

    it('sends a request through a real SMTP server with a text and an HTML part, logged in, from MAIL_FROM', async () => {
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      const w = worker(sender(smtp.url));
      expect(await w.runOnce()).to.equal(1);
      await w.stop();
      expect(smtp.received).to.have.length(1);
      const [mail] = smtp.received;
      expect(mail!.user).to.equal(SMTP_USER);
      expect(mail!.to).to.deep.equal(['ada@acme.example']);
      expect(mail!.from).to.equal('reports@acorn.example');
      const parsed = mail!.parsed;
      expect(parsed.subject).to.equal('Q1 2026 update for Acorn Ventures: due 15 April 2026');
      expect(parsed.from?.value).to.deep.equal([
        { name: 'Acorn Ventures', address: 'reports@acorn.example' },
      ]);
      expect(parsed.to && !Array.isArray(parsed.to) && parsed.to.value).to.deep.equal([
        { name: 'Ada Founder', address: 'ada@acme.example' },
      ]);
      expect(parsed.text).to.contain(link).and.contain('Cash in bank (optional)').and.contain('Board deck');
      expect(parsed.html).to.be.a('string').and.contain(`href="${link}"`).and.contain('Revenue');
      expect(parsed.headers.get('auto-submitted')).to.equal('auto-generated');
      expect(outcomes).to.deep.equal(['sent']);
      const row = await rowOf(repos, link);
      expect(row).to.include({
        status: 'sent',
        attempts: 1,
        sent_at: clock.now().toISOString(),
        last_error: null,
      });
      expect(row.message_id).to.equal(parsed.messageId);
    });

    it('scrubs the founder link from the stored copy once the message is sent, and from nothing before', async () => {
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      const queued = await rowOf(repos, link);
      expect(queued.link).to.equal(link);
      expect(queued.text_body).to.contain(link);
      const w = worker(sender(smtp.url));
      await w.runOnce();
      await w.stop();
      const sent = await rowOf(repos, link);
      expect(sent.link).to.equal(null);
      for (const body of [sent.subject, sent.text_body, sent.html_body]) expect(body).to.not.contain('frl_');
      expect(sent.text_body).to.contain(SCRUBBED_LINK_NOTE);
      expect(sent.html_body).to.contain('link removed from the stored copy');
      expect(smtp.received[0]!.parsed.text).to.contain(link);
    });

    it('retries a message the server refuses for now (451), recording each error, and fails it after the last attempt', async () => {
      smtp.setMode('busy');
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      const w = worker(sender(smtp.url), { maxAttempts: 3 });
      expect(await w.runOnce()).to.equal(1);
      let row = await rowOf(repos, link);
      expect(row).to.include({ status: 'pending', attempts: 1 });
      expect(row.last_error).to.match(/451 try again later/);
      // Not due before its backoff (about 30 s).
      expect(await w.runOnce()).to.equal(0);
      clock.advance(40_000);
      expect(await w.runOnce()).to.equal(1);
      row = await rowOf(repos, link);
      expect(row).to.include({ status: 'pending', attempts: 2 });
      clock.advance(3 * 60_000);
      expect(await w.runOnce()).to.equal(1);
      await w.stop();
      row = await rowOf(repos, link);
      expect(row).to.include({ status: 'failed', attempts: 3, sent_at: null });
      expect(row.last_error).to.match(/451 try again later/);
      expect(row.link, 'a failed message keeps its link for the operator').to.equal(link);
      expect(outcomes).to.deep.equal(['retry', 'retry', 'failed']);
      expect(logs.filter((l) => l.msg === 'mail failed')).to.have.length(1);
      expect(smtp.received).to.have.length(0);
    });

    it('retries while the SMTP server is down, then sends once it answers', async () => {
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      const down = worker(sender(await downSmtpUrl()));
      expect(await down.runOnce()).to.equal(1);
      await down.stop();
      const row = await rowOf(repos, link);
      expect(row).to.include({ status: 'pending', attempts: 1 });
      expect(row.last_error).to.match(/ECONNREFUSED|ECONNECTION/);
      clock.advance(60_000);
      const up = worker(sender(smtp.url));
      expect(await up.runOnce()).to.equal(1);
      await up.stop();
      expect(await rowOf(repos, link)).to.include({ status: 'sent', attempts: 2 });
      expect(smtp.received).to.have.length(1);
    });

    it('fails at once a message whose recipient the server refuses for good (550)', async () => {
      smtp.setMode('no-such-user');
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      const w = worker(sender(smtp.url), { maxAttempts: 5 });
      await w.runOnce();
      await w.stop();
      const row = await rowOf(repos, link);
      expect(row).to.include({ status: 'failed', attempts: 1 });
      expect(row.last_error).to.match(/RCPT TO.*550 no such user here/);
    });

    it('holds every message without SMTP, and a node with SMTP leaves held messages alone until one is released', async () => {
      const links = [
        await queueRequest(repos, firmId, clock.now().toISOString()),
        await queueRequest(repos, firmId, clock.now().toISOString()),
      ];
      const holding = worker(undefined);
      expect(await holding.runOnce()).to.equal(2);
      await holding.stop();
      for (const link of links)
        expect(await rowOf(repos, link)).to.include({ status: 'held', attempts: 0, link });
      expect(outcomes).to.deep.equal(['held', 'held']);
      expect(logs.map((l) => l.msg)).to.include(
        'mail held: SMTP_URL is not set; read it with "portfolio outbox"',
      );
      const sending = worker(sender(smtp.url));
      expect(await sending.runOnce()).to.equal(0);
      expect(smtp.received).to.have.length(0);
      const held = await rowOf(repos, links[0]!);
      expect(await repos.mail.release(held.id, clock.now().toISOString())).to.equal(true);
      expect(await repos.mail.release(held.id, clock.now().toISOString())).to.equal(false);
      expect(await sending.runOnce()).to.equal(1);
      await sending.stop();
      expect(smtp.received.map((m) => m.parsed.text?.includes(links[0]!))).to.deep.equal([true]);
      expect(await rowOf(repos, links[1]!)).to.include({ status: 'held' });
    });

    it('sends again a message whose node died holding it, once the lease has run out, and not before', async () => {
      const link = await queueRequest(repos, firmId, clock.now().toISOString());
      // A node claims it and dies before sending: nothing records the attempt's end.
      const [lost] = await repos.mail.claim({ now: clock.now(), leaseMs: 60_000, limit: 10 });
      expect(lost).to.not.equal(undefined);
      const w = worker(sender(smtp.url));
      expect(await w.runOnce()).to.equal(0);
      clock.advance(61_000);
      expect(await w.runOnce()).to.equal(1);
      await w.stop();
      expect(await rowOf(repos, link)).to.include({ status: 'sent', attempts: 2 });
      // The dead node's late report changes nothing: its claim is gone.
      const late = { ok: false as const, at: clock.now().toISOString(), error: 'late', retryAt: null };
      expect(await repos.mail.finish(lost!, late)).to.equal(false);
      expect(await rowOf(repos, link)).to.include({ status: 'sent', last_error: null });
    });

    // Several nodes share PostgreSQL; SQLite serves one node (two connections in one process would wait on each other).
    const severalNodes = dialect.name === 'postgres' ? it : it.skip;
    severalNodes(
      'sends each message once with two nodes sending from one database at the same time',
      async () => {
        const second = openDb(t.url);
        try {
          const links = await Promise.all(
            Array.from({ length: 40 }, () => queueRequest(repos, firmId, clock.now().toISOString())),
          );
          const nodes = [worker(sender(smtp.url)), worker(sender(smtp.url), { repos: createRepos(second) })];
          const drain = async (w: (typeof nodes)[number]) => {
            while ((await w.runOnce()) > 0) {
              // a busy node takes the next batch at once
            }
          };
          await Promise.all(nodes.map(drain));
          await Promise.all(nodes.map((w) => w.stop()));
          const sentLinks = smtp.received.map((m) => /frl_\S+/.exec(m.parsed.text ?? '')?.[0]);
          expect(sentLinks).to.have.length(40);
          expect(new Set(sentLinks).size).to.equal(40);
          const rows = await repos.mail.list({ firmId, limit: 100 });
          expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).to.equal(true);
          expect(links).to.have.length(40);
        } finally {
          await second.destroy();
        }
      },
    );

    it('prunes sent and failed messages past the retention, never held or pending ones', async () => {
      const [sent, failed, held, pending] = await Promise.all(
        [0, 1, 2, 3].map(() => queueRequest(repos, firmId, clock.now().toISOString())),
      );
      const old = '2026-01-01T00:00:00.000Z';
      const set = (link: string, status: string) =>
        t
          .db('outbound_mail')
          .where('dedupe_key', `request:${link.split('frl_')[1]}`)
          .update({ status, updated_at: old });
      await set(sent!, 'sent');
      await set(failed!, 'failed');
      await set(held!, 'held');
      await set(pending!, 'pending');
      expect(await repos.mail.prune('2026-02-01T00:00:00.000Z')).to.equal(2);
      const left = (await repos.mail.list({ firmId, limit: 10 })).map((r) => r.status).sort();
      expect(left).to.deep.equal(['held', 'pending']);
    });
  });
}
