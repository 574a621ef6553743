import { isDatabaseEmpty, seedDemo } from '../../db/seeds/demo.ts';
import { defineCommand, output, table } from '../command.ts';
import { CliError, UsageError } from '../errors.ts';

export const migrate = defineCommand({
  name: 'migrate',
  summary: 'bring the database schema up to date',
  options: {},
  async run(ctx) {
    output(ctx, { applied: ctx.migrated }, () =>
      ctx.migrated.length === 0
        ? ['the database is up to date']
        : [`applied ${ctx.migrated.length} migration(s): ${ctx.migrated.join(', ')}`],
    );
  },
});

export const seed = defineCommand({
  name: 'seed',
  summary: 'load the demo data into an empty database',
  options: {
    demo: { type: 'boolean', description: 'the demo data (the only kind there is, asked for by name)' },
  },
  async run(ctx, args) {
    if (!args.flag('demo')) throw new UsageError('seed needs --demo');
    // Seeding twice would collide with the first run's rows, and seeding beside real data would mix
    // fixed demo credentials into it: only an empty database is seeded.
    if (!(await isDatabaseEmpty(ctx.db))) {
      throw new CliError('the database already has data; seed --demo runs only on an empty database');
    }
    const counts = await seedDemo(ctx.db);
    output(ctx, counts, () => [
      'seeded the demo data:',
      ...table(
        ['TABLE', 'ROWS'],
        Object.entries(counts).map(([name, n]) => [name, String(n)]),
        '(nothing)',
      ).map((l) => `  ${l}`),
    ]);
  },
});
