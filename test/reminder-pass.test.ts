import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import type { Logger } from '../core/logger.ts';
import { dueReminderStep, reminderKey } from '../core/reminder-schedule.ts';
import { newId } from '../db/ids.ts';
import { openDb } from '../db/knex.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { createReminderPass, type RemindFirm } from '../services/reminders.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { TestClock } from './helpers/server.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

describe('reminder schedule', () => {
  const schedule = [-7, 0, 7];
  const due = '2026-04-15';

  it('has no step due before the first one comes', () => {
    expect(dueReminderStep(schedule, due, '2026-03-01', '2026-04-07')).to.equal(undefined);
  });

  it('names the step before, on and after the due date', () => {
    expect(dueReminderStep(schedule, due, '2026-03-01', '2026-04-08')).to.deep.equal({
      days: -7,
      kind: 'before',
      date: '2026-04-08',
    });
    expect(dueReminderStep(schedule, due, '2026-03-01', '2026-04-15')?.kind).to.equal('on');
    expect(dueReminderStep(schedule, due, '2026-03-01', '2026-04-22')).to.deep.equal({
      days: 7,
      kind: 'after',
      date: '2026-04-22',
    });
  });

  it('gives only the latest step that has come, not each one a stopped pass missed', () => {
    expect(dueReminderStep([7, -7, 0], due, '2026-03-01', '2026-06-01')?.days).to.equal(7);
    expect(dueReminderStep(schedule, due, '2026-03-01', '2026-04-20')?.days).to.equal(0);
  });

  it('gives no step that fell on or before the day the request was sent', () => {
    expect(dueReminderStep(schedule, due, '2026-04-10T09:00:00.000Z', '2026-04-12')).to.equal(undefined);
    expect(dueReminderStep(schedule, due, '2026-04-15T09:00:00.000Z', '2026-04-15')).to.equal(undefined);
    expect(dueReminderStep(schedule, due, '2026-04-10T09:00:00.000Z', '2026-04-15')?.days).to.equal(0);
  });

  it('has nothing due for a request without a schedule', () => {
    expect(dueReminderStep([], due, '2026-03-01', '2026-05-01')).to.equal(undefined);
  });
});

/** A firm's reports waiting for answers, as a stand-in for the information loop's tables. */
interface Waiting {
  reportId: string;
  contactId: string;
}

/**
 * A firm's turn as the loop takes it: leave out the reminders queued already, make each remaining one
 * (slowly, as minting a link and rendering take a moment), queue it.
 */
function remindFirmOver(waiting: Waiting[], made: string[]): RemindFirm {
  return async (repos, firm, now) => {
    const step = dueReminderStep([-7, 0, 7], '2026-04-15', '2026-03-01', now.toISOString().slice(0, 10));
    if (!step) return { reminders: 0, late: 0 };
    // Each firm has reports of its own.
    const keys = waiting.map((w) => reminderKey(`${firm.slug}-${w.reportId}`, step.days, w.contactId));
    const queued = await repos.mail.queuedKeys(keys);
    const todo = keys.filter((k) => !queued.has(k));
    for (const key of todo) {
      made.push(key);
      await delay(2);
    }
    await repos.mail.enqueue(
      ...todo.map((key) => ({
        firmId: firm.id,
        kind: 'reminder' as const,
        to: 'founder@example.com',
        subject: 'Reminder',
        text: key,
        html: `<p>${key}</p>`,
        dedupeKey: key,
        queuedAt: now.toISOString(),
      })),
    );
    return { reminders: todo.length, late: 0 };
  };
}

for (const dialect of dialects) {
  describe(`the reminder pass (${dialect.name}) @db`, function () {
    this.timeout(30_000);
    let t: TestDb;
    let repos: Repos;
    // 30 reports waiting in each of two firms.
    const waiting: Waiting[] = Array.from({ length: 30 }, () => ({ reportId: newId(), contactId: newId() }));

    before(async () => {
      t = await dialect.open();
      repos = createRepos(t.db);
      for (const slug of ['acorn', 'birch'])
        await repos.firms.create({
          id: newId(),
          slug,
          name: slug,
          preferred_currency: 'USD',
          country: 'US',
          city: 'Boston',
          enabled_feature_flags: '',
          created_at: '2026-01-01T00:00:00.000Z',
        });
    });
    after(() => t.drop());
    beforeEach(() => t.db('outbound_mail').delete());

    it('queues each due reminder once, however often it runs, and the next step when it comes', async () => {
      const clock = new TestClock(new Date('2026-04-08T06:00:00.000Z'));
      const made: string[] = [];
      const pass = createReminderPass({
        repos,
        clock,
        logger: quiet,
        intervalMs: 60_000,
        remindFirm: remindFirmOver(waiting, made),
      });
      expect((await pass.runOnce()).reminders).to.equal(60);
      expect((await pass.runOnce()).reminders).to.equal(0);
      clock.set(new Date('2026-04-15T06:00:00.000Z'));
      expect((await pass.runOnce()).reminders).to.equal(60);
      const keys = (await repos.mail.list({ limit: 1000 })).map((m) => m.dedupe_key);
      expect(keys.filter((k) => k.includes(':-7:'))).to.have.length(60);
      expect(keys.filter((k) => k.includes(':0:'))).to.have.length(60);
    });

    // Several nodes share PostgreSQL; SQLite serves one node.
    const severalNodes = dialect.name === 'postgres' ? it : it.skip;
    severalNodes('queues each reminder once with two nodes running the pass at the same moment', async () => {
      const second = openDb(t.url);
      try {
        const clock = new TestClock(new Date('2026-04-22T06:00:00.000Z'));
        const made: string[] = [];
        const nodes = [repos, createRepos(second)].map((r) =>
          createReminderPass({
            repos: r,
            clock,
            logger: quiet,
            intervalMs: 60_000,
            remindFirm: remindFirmOver(waiting, made),
          }),
        );
        const results = await Promise.all(nodes.map((n) => n.runOnce()));
        const keys = (await repos.mail.list({ limit: 1000 })).map((m) => m.dedupe_key);
        expect(keys).to.have.length(60);
        expect(new Set(keys).size).to.equal(60);
        expect(results.reduce((n, r) => n + r.reminders, 0)).to.equal(60);
        // A firm's turn is one node's at a time: no reminder was even made twice.
        expect(made).to.have.length(60);
      } finally {
        await second.destroy();
      }
    });
  });
}
