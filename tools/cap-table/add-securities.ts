import { z } from 'zod';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type { NewSecurity, StoredMoney } from '../../db/repos/cap-table.ts';
import { addSecurities as addSecurityRecords } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import { CONVERTIBLE_TYPES } from '../schemas/security.ts';
import {
  checkCompany,
  checkFund,
  checkMoney,
  fail,
  type Item,
  lenient,
  MAX_ITEMS,
  rawId,
  rawIds,
  storedMoney,
  throwIfInvalid,
  unpackLists,
  withTableRates,
} from './items.ts';

const date = (description: string) =>
  z.iso.date({ error: 'must be a date YYYY-MM-DD' }).describe(`${description}, YYYY-MM-DD.`);

// The reference's constant `type` of each kind is not needed: the list says the kind.
const base = {
  issue_date: date('Issue date'),
  fund_id: z.string().min(1).describe('Holding fund (list_funds).'),
  company_id: z.string().min(1).describe('Company (list_companies).'),
};

const financingId = z.string().min(1).describe("The company's round (get_financing_events).");
const token = z.string().trim().min(1).max(64).nullable().describe('Token symbol or null.');
const count = (what: string) => decimalInput('nonNegative').describe(`${what} (0 or more).`);
const fraction = (what: string) =>
  decimalInput('nonNegative')
    .refine((v) => Number(v) <= 1, { error: 'must be a fraction from 0 to 1' })
    .nullish()
    .describe(`${what}, a fraction from 0 to 1, or null.`);

const kinds = {
  certificates: z.object({
    ...base,
    investment_amount: MoneyInput.describe('Amount invested.'),
    shares: count('Shares held'),
    share_class_id: z.string().min(1).describe("The company's share class (id from get_share_classes)."),
    financing_id: financingId
      .nullish()
      .describe("Round of the certificate; omitted or null: the share class's."),
  }),
  warrants: z.object({
    ...base,
    due_date: date('Expiry date'),
    exercise_price: MoneyInput.describe('Exercise price per share.'),
    shares: count('Shares the warrant can be exercised for'),
    financing_id: financingId,
  }),
  convertibles: z.object({
    ...base,
    convertible_type: z.enum(CONVERTIBLE_TYPES).describe('convertible_note, basic_note, safe or kiss.'),
    discount: fraction('Discount on conversion'),
    valuation_cap: MoneyInput.nullish().describe('Valuation cap, or null.'),
    maturity_date: date('Maturity date').nullish(),
    interest_rate: fraction('Annual interest rate'),
    days_convention: z
      .union([z.literal(360), z.literal(365)])
      .nullish()
      .describe('Day-count convention or null.'),
    investment_amount: MoneyInput.describe('Principal invested.'),
    financing_id: financingId,
  }),
  token_investments: z.object({
    ...base,
    token,
    investment_amount: MoneyInput.describe('Amount invested.'),
    quantity: count('Tokens held'),
    price_per_token: MoneyInput.describe('Price per token at purchase.'),
    financing_id: financingId,
  }),
  token_warrants: z.object({
    ...base,
    token,
    due_date: date('Expiry date'),
    total_cost: MoneyInput.describe('Total cost of the warrant.'),
    exercise_price: MoneyInput.describe('Exercise price per token.'),
    quantity: count('Tokens the warrant can be exercised for'),
    financing_id: financingId,
  }),
  token_convertibles: z.object({
    ...base,
    token,
    purchase_amount: MoneyInput.describe('Amount paid.'),
    financing_id: financingId,
  }),
};
type Kind = keyof typeof kinds;
const KINDS = Object.keys(kinds) as Kind[];

/** The security type each list holds. */
const TYPE: Record<Kind, string> = {
  certificates: 'certificate',
  warrants: 'warrant',
  convertibles: 'convertible',
  token_investments: 'token_investment',
  token_warrants: 'token_warrant',
  token_convertibles: 'token_convertible',
};

/** The money fields of each kind, and whether a value is required. */
const MONEY: Record<Kind, [string, boolean][]> = {
  certificates: [['investment_amount', true]],
  warrants: [['exercise_price', true]],
  convertibles: [
    ['investment_amount', true],
    ['valuation_cap', false],
  ],
  token_investments: [
    ['investment_amount', true],
    ['price_per_token', true],
  ],
  token_warrants: [
    ['total_cost', true],
    ['exercise_price', true],
  ],
  token_convertibles: [['purchase_amount', true]],
};

const listMessage = `must hold at most ${MAX_ITEMS} items`;
const list = <T extends z.ZodType>(item: T, description: string) =>
  z.array(lenient(item)).max(MAX_ITEMS, { error: listMessage }).default([]).describe(description);

const Ids = z.object(
  Object.fromEntries(KINDS.map((k) => [k, z.array(z.string()).describe('In request order.')])) as Record<
    Kind,
    z.ZodArray<z.ZodString>
  >,
);

export const addSecurities = defineTool({
  name: 'add_securities',
  title: 'Add securities (holdings) to cap tables',
  description:
    `Adds securities held by the firm's funds, up to ${MAX_ITEMS} of each kind, all or none; a 400 names ` +
    'each offending field as certificates[i].field. Needs the cap-table permission.',
  input: z.object({
    certificates: list(kinds.certificates, 'Share certificates'),
    warrants: list(kinds.warrants, 'Warrants'),
    convertibles: list(kinds.convertibles, 'Convertible notes, SAFEs and KISSes'),
    token_investments: list(kinds.token_investments, 'Token investments'),
    token_warrants: list(kinds.token_warrants, 'Token warrants'),
    token_convertibles: list(kinds.token_convertibles, 'Token convertibles'),
  }),
  output: z.object({
    message: z.string().describe('What was added.'),
    ids: Ids.describe('The new security ids by kind.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  async handler(ctx, input) {
    const { lists, all } = unpackLists(
      input as Record<(typeof KINDS)[number], unknown[]>,
      KINDS,
      'add',
      'security in one of the lists',
    );
    const scope = ctx.principal.scope;
    const visible = await ctx.repos.companies.names(scope, rawIds(all, 'company_id'));
    const funds = await ctx.repos.capTable.fundRefs(ctx.principal.firm.id, rawIds(all, 'fund_id'));
    const rounds = await ctx.repos.capTable.financingRefs(scope, rawIds(all, 'financing_id'));
    const classes = await ctx.repos.capTable.shareClassRefs(scope, rawIds(all, 'share_class_id'));

    for (const [kind, items] of lists) {
      for (const item of items) {
        for (const [field, required] of MONEY[kind]) checkMoney(item, field, required);
        checkFund(item, funds);
        if (!checkCompany(item, visible)) continue;
        const companyId = rawId(item, 'company_id')!;
        const financing = rawId(item, 'financing_id');
        if (financing !== null && rounds.get(financing)?.company_id !== companyId) {
          fail(
            item,
            'financing_id',
            `${financing} is not a financing of company ${companyId}; call get_financing_events with its company_ids for valid ids`,
          );
        }
        const shareClass = rawId(item, 'share_class_id');
        if (kind === 'certificates' && shareClass !== null) {
          const ref = classes.get(shareClass);
          if (ref?.company_id !== companyId) {
            fail(
              item,
              'share_class_id',
              `${shareClass} is not a share class of company ${companyId}; call get_share_classes with its company_ids for valid ids`,
            );
          } else if (financing !== null && ref.financing_id !== financing) {
            fail(
              item,
              'financing_id',
              `must be ${ref.financing_id}, the round of share class ${shareClass}, or null`,
            );
          }
        }
      }
    }
    throwIfInvalid(
      'securities',
      lists.map(([, items]) => items),
    );

    const now = nowIso(ctx.clock.now());
    const rows: NewSecurity[] = [];
    const amounts: { row: number; field: string; money: StoredMoney; date: string }[] = [];
    for (const [kind, items] of lists) {
      for (const item of items as Item<Record<string, unknown>>[]) {
        const { issue_date, fund_id, company_id, financing_id, share_class_id, ...details } = item.ok!;
        const shareClass = typeof share_class_id === 'string' ? classes.get(share_class_id)! : null;
        for (const [field] of MONEY[kind]) {
          const money = details[field] as z.output<typeof MoneyInput> | null | undefined;
          if (money) {
            amounts.push({ row: rows.length, field, money: storedMoney(money), date: issue_date as string });
          } else details[field] = null;
        }
        if (shareClass) details.share_class_name = shareClass.name;
        rows.push({
          id: prefixedId('sec'),
          company_id: company_id as string,
          fund_id: fund_id as string,
          financing_id: (financing_id as string | null | undefined) ?? shareClass?.financing_id ?? null,
          share_class_id: shareClass?.id ?? null,
          type: TYPE[kind],
          issue_date: issue_date as string,
          details,
          created_at: now,
        });
      }
    }
    const rated = await withTableRates(ctx, amounts);
    amounts.forEach((a, i) => {
      rows[a.row]!.details[a.field] = rated[i];
    });
    await addSecurityRecords(ctx, rows, [], now);

    let next = 0;
    const ids = Object.fromEntries(
      lists.map(([kind, items]) => [kind, items.map(() => rows[next++]!.id)]),
    ) as Record<Kind, string[]>;
    return { message: `Added ${rows.length} ${rows.length === 1 ? 'security' : 'securities'}.`, ids };
  },
});
