import { z } from 'zod';
import { addSecurities as addSecurityRecords, SECURITY_KINDS } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import { CONVERTIBLE_TYPES } from '../schemas/security.ts';
import { optionalList as list, MAX_ITEMS, unpackLists } from './items.ts';

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
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/securities/add/',
      summary: 'Add securities',
      body: 'merge',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const lists = unpackLists(input, SECURITY_KINDS, 'add', 'security in one of the lists');
    const { count, ids } = await addSecurityRecords(ctx, lists);
    return { message: `Added ${count} ${count === 1 ? 'security' : 'securities'}.`, ids };
  },
});
