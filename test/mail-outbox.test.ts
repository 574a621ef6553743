import { expect } from 'chai';
import { LINK_MARK } from '../core/mail-link.ts';
import { newId } from '../db/ids.ts';
import { createRepos, inTransaction, type Repos } from '../db/repos/index.ts';
import type { NewMail } from '../db/repos/mail.ts';
import { dialects, type TestDb } from './helpers/db.ts';

const T0 = '2026-03-01T09:00:00.000Z';

async function firm(repos: Repos, slug: string): Promise<string> {
  const id = newId();
  await repos.firms.create({
    id,
    slug,
    name: `${slug} Ventures`,
    preferred_currency: 'USD',
    country: 'US',
    city: 'Boston',
    enabled_feature_flags: '',
    created_at: T0,
  });
  return id;
}

function message(firmId: string, key: string, extra: Partial<NewMail> = {}): NewMail {
  const link = `https://portfolio.example/respond/frl_${key}`;
  return {
    firmId,
    kind: 'request',
    to: 'ada@acme.example',
    toName: 'Ada Founder',
    subject: 'Q1 2026 figures for Acme',
    text: `Answer here: ${link}\n`,
    html: `<p><a ${LINK_MARK} href="${link}">${link}</a></p>`,
    dedupeKey: key,
    reportId: 'report-1',
    requestId: 'request-1',
    queuedAt: T0,
    ...extra,
  };
}

for (const dialect of dialects) {
  describe(`outbound mail outbox (${dialect.name}) @db`, () => {
    let t: TestDb;
    let repos: Repos;
    let firmId: string;

    before(async () => {
      t = await dialect.open();
      repos = createRepos(t.db);
      firmId = await firm(repos, 'acorn');
    });
    after(() => t.drop());

    it('queues a message as pending, due at once, with every field and the link it carries', async () => {
      await repos.mail.enqueue(message(firmId, 'request:r1:c1'));
      const [row] = await repos.mail.list({ firmId, limit: 10 });
      expect(row).to.include({
        firm_id: firmId,
        kind: 'request',
        to_address: 'ada@acme.example',
        to_name: 'Ada Founder',
        subject: 'Q1 2026 figures for Acme',
        status: 'pending',
        attempts: 0,
        next_attempt_at: T0,
        dedupe_key: 'request:r1:c1',
        report_id: 'report-1',
        request_id: 'request-1',
        link: 'https://portfolio.example/respond/frl_request:r1:c1',
        sent_at: null,
        created_at: T0,
      });
      expect(row!.text_body).to.contain('/respond/frl_request:r1:c1');
    });

    it('queues a message once however often its dedupe key is queued', async () => {
      const key = 'reminder:r2:-3:c1';
      await repos.mail.enqueue(message(firmId, key), message(firmId, key, { subject: 'again' }));
      await repos.mail.enqueue(message(firmId, key, { subject: 'and again' }));
      const rows = (await repos.mail.list({ firmId, limit: 100 })).filter((r) => r.dedupe_key === key);
      expect(rows.map((r) => r.subject)).to.deep.equal(['Q1 2026 figures for Acme']);
    });

    it('queues nothing when the transaction of the write that caused it rolls back', async () => {
      const failing = inTransaction(repos, async (trx) => {
        await trx.mail.enqueue(message(firmId, 'request:rolled-back:c1'));
        throw new Error('the write failed');
      });
      const error = await failing.then(
        () => undefined,
        (err: Error) => err,
      );
      expect(error?.message).to.equal('the write failed');
      const keys = (await repos.mail.list({ firmId, limit: 100 })).map((r) => r.dedupe_key);
      expect(keys).to.not.include('request:rolled-back:c1');
    });

    it('keeps the first of two transactions queueing the same key at the same moment', async () => {
      const key = 'reminder:r3:0:c1';
      await Promise.all(
        ['first', 'second'].map((subject) =>
          inTransaction(repos, (trx) => trx.mail.enqueue(message(firmId, key, { subject }))),
        ),
      );
      const rows = (await repos.mail.list({ firmId, limit: 100 })).filter((r) => r.dedupe_key === key);
      expect(rows).to.have.length(1);
    });

    it('lists a firm’s messages newest first, and only that firm’s', async () => {
      const other = await firm(repos, 'birch');
      await repos.mail.enqueue(
        message(other, 'request:b1:c1', { queuedAt: '2026-03-02T00:00:00.000Z' }),
        message(other, 'request:b2:c1', { queuedAt: '2026-03-03T00:00:00.000Z' }),
      );
      const rows = await repos.mail.list({ firmId: other, limit: 10 });
      expect(rows.map((r) => r.dedupe_key)).to.deep.equal(['request:b2:c1', 'request:b1:c1']);
      expect(await repos.mail.get(rows[0]!.id, firmId)).to.equal(undefined);
      expect((await repos.mail.get(rows[0]!.id, other))?.dedupe_key).to.equal('request:b2:c1');
    });

    it('queues a thousand messages in one call', async () => {
      const many = Array.from({ length: 1000 }, (_, i) => message(firmId, `bulk:${i}`));
      await repos.mail.enqueue(...many);
      const rows = await repos.mail.list({ firmId, limit: 2000 });
      expect(rows.filter((r) => r.dedupe_key.startsWith('bulk:'))).to.have.length(1000);
    });
  });
}
