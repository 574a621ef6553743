import { createFirm, listFirms } from '../../auth/accounts.ts';
import { CURRENCY_CODES } from '../../core/money.ts';
import { defineCommand, output, table } from '../command.ts';

export const firmsCreate = defineCommand({
  name: 'firms create',
  usage: '--name N --slug S --currency CUR [--json]',
  summary: 'create a firm (currency: its preferred currency)',
  options: {
    name: { type: 'string', required: true },
    slug: { type: 'string', required: true },
    currency: { type: 'string', required: true, choices: CURRENCY_CODES, upperCase: true },
  },
  async run(ctx, args) {
    const firm = await createFirm(ctx.repos, ctx.clock, {
      name: args.need('name'),
      slug: args.need('slug'),
      currency: args.need('currency'),
    });
    output(ctx, firm, () => [
      `created firm ${firm.slug} (${firm.name}, ${firm.preferred_currency}), id ${firm.id}`,
    ]);
  },
});

export const firmsList = defineCommand({
  name: 'firms list',
  usage: '[--json]',
  summary: 'list every firm',
  options: {},
  async run(ctx) {
    const firms = await listFirms(ctx.repos);
    output(ctx, firms, () =>
      table(
        ['SLUG', 'CURRENCY', 'ID', 'NAME'],
        firms.map((f) => [f.slug, f.preferred_currency, f.id, f.name]),
        'no firms yet: create one with "portfolio firms create"',
      ),
    );
  },
});
