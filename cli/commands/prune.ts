import { pruneExpired } from '../../db/prune.ts';
import { defineCommand, output } from '../command.ts';

export const pruneCommand = defineCommand({
  name: 'prune',
  summary: 'delete expired codes, sessions, tokens, idempotency keys and abandoned client registrations',
  options: {},
  async run(ctx) {
    const deleted = await pruneExpired(ctx.db, ctx.clock.now());
    output(ctx, deleted, () =>
      Object.entries(deleted).map(([table, n]) => `${table.padEnd(20)} ${n} deleted`),
    );
  },
});
