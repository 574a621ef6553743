import { createFirm, listFirms } from '../../auth/accounts.ts';
import { CURRENCY_CODES } from '../../core/money.ts';
import { defineCommand, output, table } from '../command.ts';

export const firmsCreate = defineCommand({
  name: 'firms create',
  summary: 'create a firm (currency: its preferred currency)',
  options: {
    name: { type: 'string', value: 'name', required: true, description: 'the display name' },
    slug: {
      type: 'string',
      value: 'slug',
      required: true,
      description: 'the short unique name other commands select it by',
    },
    currency: {
      type: 'string',
      value: 'code',
      required: true,
      choices: CURRENCY_CODES,
      upperCase: true,
      description: 'its preferred currency, an ISO 4217 code such as USD or eur',
    },
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
