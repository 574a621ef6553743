import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { newId } from '../db/ids.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import type { MailStatus } from '../db/repos/mail.ts';
import { requestMessage } from '../mail/templates.ts';
import { cliEntry } from './helpers/build.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { waitFor } from './helpers/processes.ts';
import { startTestServer } from './helpers/server.ts';
import { startSmtp } from './helpers/smtp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `portfolio ARGS` as an operator would, over the test's database. */
function portfolio(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  const child = spawn(process.execPath, [cliEntry, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      HOST: '',
      PORT: '0',
      PUBLIC_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function firm(repos: Repos, slug: string, name: string): Promise<string> {
  const id = newId();
  await repos.firms.create({
    id,
    slug,
    name,
    preferred_currency: 'USD',
    country: 'US',
    city: 'Boston',
    enabled_feature_flags: '',
    created_at: '2026-01-01T00:00:00.000Z',
  });
  return id;
}

/** Queues a request mail to `to`; answers the founder link in it. */
async function queue(repos: Repos, firmId: string, firmName: string, to: string): Promise<string> {
  const link = `http://127.0.0.1:8000/respond/frl_${newId()}`;
  const message = requestMessage({
    firmName,
    companyName: 'Acme',
    contactName: 'Ada Founder',
    requestName: 'Q1 2026 update',
    period: 'quarter',
    dueDate: '2026-04-15',
    link,
    metrics: [{ name: 'Revenue', optional: false }],
    documents: [],
  });
  await repos.mail.enqueue({
    firmId,
    kind: 'request',
    to,
    toName: 'Ada Founder',
    ...message,
    dedupeKey: link,
  });
  return link;
}

const statusesOf = async (repos: Repos, firmId: string): Promise<MailStatus[]> =>
  (await repos.mail.list({ firmId, limit: 100 })).map((r) => r.status);

for (const dialect of dialects) {
  describe(`the outbox without SMTP, and "portfolio outbox" (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let repos: Repos;
    let acorn: string;
    let birch: string;
    let links: { acorn: string; birch: string };

    before(async () => {
      t = await dialect.open();
      repos = createRepos(t.db);
      acorn = await firm(repos, 'acorn', 'Acorn Ventures');
      birch = await firm(repos, 'birch', 'Birch Capital');
      links = {
        acorn: await queue(repos, acorn, 'Acorn Ventures', 'ada@acme.example'),
        birch: await queue(repos, birch, 'Birch Capital', 'bo@beta.example'),
      };
      // The laptop default: a server without SMTP_URL holds what is queued.
      const server = await startTestServer(t.db, {
        env: { MAIL_DELIVERY: 'on', MAIL_POLL_INTERVAL_SECONDS: '0.05' },
      });
      try {
        await waitFor('the mail to be held', async () =>
          (await statusesOf(repos, birch)).includes('held') &&
          (await statusesOf(repos, acorn)).includes('held')
            ? true
            : undefined,
        );
      } finally {
        await server.close();
      }
    });
    after(() => t.drop());

    it('lists held messages newest first with the founder link to open, for a person and as JSON', async () => {
      const human = await portfolio(t.url, ['outbox']);
      expect(human.stderr).to.equal('');
      expect(human.code).to.equal(0);
      expect(human.stdout).to.contain(`link:    ${links.acorn}`).and.contain(`link:    ${links.birch}`);
      expect(human.stdout).to.contain('to:      Ada Founder <ada@acme.example>');
      expect(human.stdout.indexOf('birch')).to.be.below(human.stdout.indexOf('acorn'));
      const json = await portfolio(t.url, ['outbox', '--json']);
      const listed = JSON.parse(json.stdout) as { firm: string; status: string; link: string; to: string }[];
      expect(listed.map((m) => [m.firm, m.status, m.link])).to.deep.equal([
        ['birch', 'held', links.birch],
        ['acorn', 'held', links.acorn],
      ]);
    });

    it('lists one firm with --firm, at most --limit messages, and refuses an unknown firm', async () => {
      const one = JSON.parse((await portfolio(t.url, ['outbox', '--firm', 'acorn', '--json'])).stdout);
      expect(one.map((m: { link: string }) => m.link)).to.deep.equal([links.acorn]);
      const limited = JSON.parse((await portfolio(t.url, ['outbox', '--limit', '1', '--json'])).stdout);
      expect(limited).to.have.length(1);
      const unknown = await portfolio(t.url, ['outbox', '--firm', 'nowhere']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.match(/no firm with slug "nowhere"/);
      const bad = await portfolio(t.url, ['outbox', '--limit', '0']);
      expect(bad.code).to.equal(2);
    });

    it('shows one message in full with "outbox show ID", and says so for an unknown id', async () => {
      const [row] = await repos.mail.list({ firmId: acorn, limit: 1 });
      const shown = await portfolio(t.url, ['outbox', 'show', row!.id]);
      expect(shown.code).to.equal(0);
      expect(shown.stdout).to.contain('status:   held').and.contain('Hello Ada Founder,');
      expect(shown.stdout).to.contain(links.acorn).and.contain('- Revenue');
      const json = JSON.parse((await portfolio(t.url, ['outbox', 'show', row!.id, '--json'])).stdout);
      expect(json).to.include({ id: row!.id, firm: 'acorn', status: 'held', link: links.acorn });
      expect(json.html).to.contain(`href="${links.acorn}"`);
      const missing = await portfolio(t.url, ['outbox', 'show', 'nope']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.equal(
        'portfolio: no message nope in the outbox; "portfolio outbox" lists them\n',
      );
    });

    it('sends a held message queued again with "outbox send ID" from a server with SMTP_URL, and leaves the rest held', async () => {
      const smtp = await startSmtp();
      try {
        const [row] = await repos.mail.list({ firmId: acorn, limit: 1 });
        const released = await portfolio(t.url, ['outbox', 'send', row!.id]);
        expect(released.code, released.stderr).to.equal(0);
        const server = await startTestServer(t.db, {
          env: { MAIL_DELIVERY: 'on', MAIL_POLL_INTERVAL_SECONDS: '0.05', SMTP_URL: smtp.url },
        });
        try {
          await waitFor('the released message to be sent', async () =>
            (await repos.mail.get(row!.id))?.status === 'sent' ? true : undefined,
          );
        } finally {
          await server.close();
        }
        expect(smtp.received.map((m) => m.to)).to.deep.equal([['ada@acme.example']]);
        expect(await statusesOf(repos, birch)).to.deep.equal(['held']);
        const again = await portfolio(t.url, ['outbox', 'send', row!.id]);
        expect(again.code).to.equal(1);
        expect(again.stderr).to.match(/is sent, not held/);
      } finally {
        await smtp.close();
      }
    });
  });
}

describe('SMTP_URL at start-up', function () {
  this.timeout(60_000);

  it('stops "portfolio serve" on a bad SMTP_URL with one line naming it, not its password', async () => {
    const r = await portfolio('sqlite::memory:', ['serve'], {
      SMTP_URL: 'https://mailer:s3cret@smtp.example.com',
    });
    expect(r.code).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/SMTP_URL: must be smtp:\/\/user:password@host:port/);
    expect(r.stderr).to.not.contain('s3cret');
  });
});
