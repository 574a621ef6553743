import { migrateLatest, migrationStatus } from '../../db/knex.ts';
import { isDatabaseEmpty, seedDemo } from '../../db/seeds/demo.ts';
import { defineCommand, output, table } from '../command.ts';
import { addDemoCollection } from '../demo-collection.ts';
import { CliError, UsageError } from '../errors.ts';

export const migrate = defineCommand({
  name: 'migrate',
  summary: 'bring the database schema up to date (--status: list applied and pending migrations, apply none)',
  options: {
    status: {
      type: 'boolean',
      description: 'list the applied and the pending migrations without applying any',
    },
  },
  migrate: false,
  async run(ctx, args) {
    if (args.flag('status')) {
      const { applied, pending } = await migrationStatus(ctx.db);
      output(ctx, { applied, pending }, () => [
        ...table(
          ['MIGRATION', 'STATE'],
          [...applied.map((m) => [m, 'applied']), ...pending.map((m) => [m, 'pending'])],
          '(no migrations)',
        ),
        pending.length === 0
          ? 'the database is up to date'
          : `${pending.length} pending: "portfolio migrate" (or the next start) applies them`,
      ]);
      return;
    }
    const applied = await migrateLatest(ctx.db);
    output(ctx, { applied }, () =>
      applied.length === 0
        ? ['the database is up to date']
        : [`applied ${applied.length} migration(s): ${applied.join(', ')}`],
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
    await addDemoCollection({
      repos: ctx.repos,
      clock: ctx.clock,
      publicUrl: ctx.config.publicUrl,
      founderLinkDaysAfterDue: ctx.config.founderLinkDaysAfterDue,
    });
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
