import { z } from 'zod';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type { NewShareClass } from '../../db/repos/cap-table.ts';
import { addShareClasses as addShareClassRecords } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { MoneyInput } from '../schemas/money.ts';
import { PURCHASE_TYPES, ShareClassOut, toShareClassOut } from '../schemas/share-class.ts';
import {
  checkCompany,
  checkMoney,
  fail,
  itemList,
  MAX_ITEMS,
  rawId,
  rawIds,
  storedMoney,
  throwIfInvalid,
  unpack,
  withTableRates,
} from './items.ts';
import { convertedResults, resultsOf } from './shared.ts';

const ShareClassInput = z.object({
  company_id: z.string().min(1).describe('Company (list_companies).'),
  financing_id: z.string().min(1).describe("The company's round (get_financing_events)."),
  purchase_type: z.enum(PURCHASE_TYPES).describe('primary or secondary.'),
  type: z.enum(['common', 'preferred']).describe('common or preferred.'),
  name: z.string().trim().min(1).max(255).describe('1 to 255 characters.'),
  price_per_share: MoneyInput.describe("Price per share; converted at the round's closing date."),
  include_in_fair_value: z
    .boolean()
    .nullish()
    .describe('Omitted or null: true for primary, false for secondary.'),
});

export const addShareClasses = defineTool({
  name: 'add_share_classes',
  title: 'Add share classes to cap tables',
  description:
    `Adds 1 to ${MAX_ITEMS} share classes to financing rounds, all or none; a 400 names each offending field ` +
    'as share_classes[i].field. Needs the cap-table permission.',
  input: z.object({
    share_classes: itemList(ShareClassInput, `1 to ${MAX_ITEMS} share classes.`),
  }),
  output: resultsOf(ShareClassOut),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  async handler(ctx, input) {
    const scope = ctx.principal.scope;
    const items = unpack('share_classes', input.share_classes);
    const visible = await ctx.repos.companies.names(scope, rawIds(items, 'company_id'));
    const rounds = await ctx.repos.capTable.financingRefs(scope, rawIds(items, 'financing_id'));
    for (const item of items) {
      checkMoney(item, 'price_per_share', false);
      const companyOk = checkCompany(item, visible);
      const financingId = rawId(item, 'financing_id');
      if (financingId !== null && (companyOk || rawId(item, 'company_id') === null)) {
        const round = rounds.get(financingId);
        if (!round || (companyOk && round.company_id !== rawId(item, 'company_id'))) {
          fail(
            item,
            'financing_id',
            `${financingId} is not a financing of company ${rawId(item, 'company_id') ?? '?'}; ` +
              'call get_financing_events with its company_ids for valid ids',
          );
        }
      }
    }
    throwIfInvalid('share classes', [items]);

    const now = nowIso(ctx.clock.now());
    const valid = items.map((i) => i.ok!);
    const prices = await withTableRates(
      ctx,
      valid.map((s) => ({
        money: storedMoney(s.price_per_share),
        date: rounds.get(s.financing_id)!.closing_date,
      })),
    );
    const rows: NewShareClass[] = valid.map((s, i) => ({
      id: prefixedId('shc'),
      company_id: s.company_id,
      financing_id: s.financing_id,
      purchase_type: s.purchase_type,
      type: s.type,
      name: s.name,
      price_per_share: prices[i]!,
      include_in_fair_value: s.include_in_fair_value ?? s.purchase_type === 'primary',
      created_at: now,
    }));
    await addShareClassRecords(ctx, rows, now);

    const created = await ctx.repos.capTable.shareClasses(scope, { shareClassIds: rows.map((r) => r.id) });
    const byId = new Map(created.map((r) => [r.id, r]));
    return convertedResults(
      ctx,
      rows.map((r) => byId.get(r.id)!),
      true,
      {
        amounts: (r) => [{ money: r.price_per_share, date: r.closing_date }],
        out: toShareClassOut,
      },
    );
  },
});
