import { z } from 'zod';
import type { FinancingRecord, StoredMoney } from '../../db/repos/cap-table.ts';
import { type DatedMoney, decimalInput, MoneyAmount, type MoneyConverter, MoneyInput } from './money.ts';

export const SENIORITY_POSITIONS = ['SENIOR_TO_ALL', 'PARI_PASSU', 'PARI_PASSU_ALL_PREVIOUS'] as const;
export const PARTICIPATION_TYPES = [
  'NON_PARTICIPATING',
  'FULLY_PARTICIPATING',
  'CAPPED_PARTICIPATING',
] as const;

export const SeniorityPosition = z
  .enum(SENIORITY_POSITIONS)
  .describe(
    'Liquidation seniority: SENIOR_TO_ALL, PARI_PASSU (with pari_passu_rounds) or PARI_PASSU_ALL_PREVIOUS.',
  );
export const ParticipationType = z
  .enum(PARTICIPATION_TYPES)
  .describe(
    'Participation: NON_PARTICIPATING, FULLY_PARTICIPATING or CAPPED_PARTICIPATING (with cap_multiple).',
  );

export const CoInvestor = z.object({
  name: z.string().describe('Name of the co-investor.'),
  is_lead: z.boolean().describe('True for the lead investor of the round.'),
});

export const PariPassuRound = z.object({
  id: z.string().describe('Financing id of the round.'),
  name: z.string().describe('Name of the round.'),
});

/** A financing round as the service returns it (the reference FinancingOut). */
export const FinancingOut = z.object({
  id: z.string().describe('Financing id.'),
  company_id: z.string(),
  name: z.string().describe('Round name, for example Series A.'),
  pre_money_valuation: MoneyAmount.nullable(),
  round_size: MoneyAmount.nullable(),
  fully_diluted_shares: z
    .string()
    .nullable()
    .describe('Fully diluted share count at the round, decimal string.'),
  closing_date: z.string().describe('Closing date, YYYY-MM-DD.'),
  co_investors: z.array(CoInvestor),
  is_crypto: z.boolean().describe('True for a crypto financing event.'),
  liquidation_multiple: z.string().nullable().describe('Liquidation preference multiple, for example 1.50.'),
  cap_multiple: z.string().nullable().describe('Cap of a capped participating preference, for example 3.00.'),
  seniority_position: SeniorityPosition.nullable(),
  participation_type: ParticipationType.nullable(),
  pari_passu_rounds: z
    .array(PariPassuRound)
    .nullable()
    .describe('Rounds declared pari passu with this one; null when there are none.'),
  company_name: z.string(),
});
export type FinancingOut = z.infer<typeof FinancingOut>;

/** The amounts of a round to convert: pre-money valuation and round size, both at the closing date. */
export function financingAmounts(row: {
  pre_money: StoredMoney;
  round_size: StoredMoney;
  closing_date: string;
}): DatedMoney[] {
  return [
    { money: row.pre_money, date: row.closing_date },
    { money: row.round_size, date: row.closing_date },
  ];
}

export function toFinancingOut(row: FinancingRecord, fx: MoneyConverter): FinancingOut {
  return {
    id: row.id,
    company_id: row.company_id,
    name: row.name,
    pre_money_valuation: fx.optionalAmount(row.pre_money, row.closing_date),
    round_size: fx.optionalAmount(row.round_size, row.closing_date),
    fully_diluted_shares: row.fully_diluted_shares,
    closing_date: row.closing_date,
    co_investors: row.co_investors.map((c) => ({ name: c.name, is_lead: c.is_lead })),
    is_crypto: row.is_crypto,
    liquidation_multiple: row.liquidation_multiple,
    cap_multiple: row.cap_multiple,
    seniority_position: row.seniority_position as FinancingOut['seniority_position'],
    participation_type: row.participation_type as FinancingOut['participation_type'],
    pari_passu_rounds: row.pari_passu_rounds.length > 0 ? row.pari_passu_rounds : null,
    company_name: row.company_name,
  };
}

/** A financing round as a caller sends it to add_financing_rounds (the reference Financing; `id` is ignored). */
export const FinancingInput = z.object({
  company_id: z
    .string()
    .min(1)
    .describe('Id of the company whose cap table gets the round (from list_companies or search_companies).'),
  name: z.string().trim().min(1).max(255).describe('Round name, for example Series A.'),
  pre_money_valuation: MoneyInput.nullable().describe('Pre-money valuation, or null when unknown.'),
  round_size: MoneyInput.nullable().describe('Total size of the round, or null when unknown.'),
  fully_diluted_shares: decimalInput('nonNegative')
    .nullable()
    .describe('Fully diluted share count at the round (0 or more), or null when unknown.'),
  closing_date: z.iso.date({ error: 'must be a date YYYY-MM-DD' }).describe('Closing date, YYYY-MM-DD.'),
  co_investors: z
    .array(
      z.object({
        name: z.string().trim().min(1).max(255).describe('Name of the co-investor.'),
        is_lead: z.boolean().default(false).describe('True for the lead investor. Default false.'),
      }),
    )
    .max(100)
    .describe('Co-investors of the round (may be empty).'),
  is_crypto: z.boolean().default(false).describe('True for a crypto financing event. Default false.'),
  liquidation_multiple: decimalInput('nonNegative')
    .nullish()
    .describe('Liquidation preference multiple (0 or more), for example 1.5.'),
  cap_multiple: decimalInput('nonNegative')
    .nullish()
    .describe(
      'Cap multiple (0 or more); required with, and allowed only with, participation_type CAPPED_PARTICIPATING.',
    ),
  seniority_position: SeniorityPosition.nullish(),
  participation_type: ParticipationType.nullish(),
  pari_passu_rounds: z
    .array(z.string().min(1))
    .max(100)
    .nullish()
    .describe(
      'Ids of existing financings of the same company that share seniority with this round; allowed only with ' +
        'seniority_position PARI_PASSU (get_financing_events lists ids).',
    ),
});
export type FinancingInput = z.output<typeof FinancingInput>;
