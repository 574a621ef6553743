import { DEFAULT_PRUNE_WINDOWS, pruneExpired } from '../../db/prune.ts';
import { defineCommand, output } from '../command.ts';

export const pruneCommand = defineCommand({
  name: 'prune',
  summary:
    'delete expired codes, sessions, tokens, idempotency keys and abandoned client registrations, change events past EVENTS_RETENTION_DAYS, and sent or failed mail past MAIL_RETENTION_DAYS',
  options: {},
  async run(ctx) {
    const deleted = await pruneExpired(ctx.db, ctx.clock.now(), {
      ...DEFAULT_PRUNE_WINDOWS,
      eventsRetentionMs: ctx.config.eventsRetentionDays * 24 * 60 * 60 * 1000,
      mailRetentionMs: ctx.config.mailRetentionDays * 24 * 60 * 60 * 1000,
    });
    output(ctx, deleted, () =>
      Object.entries(deleted).map(([table, n]) => `${table.padEnd(20)} ${n} deleted`),
    );
  },
});
