import { z } from 'zod';
import { compareDecimal } from '../../core/decimal.ts';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type { NewFinancing, StoredMoney } from '../../db/repos/cap-table.ts';
import { addFinancings as addFinancingRecords } from '../../services/cap-table.ts';
import type { ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  throwIfUnknownCompany,
} from '../errors.ts';
import { inputError } from '../run.ts';
import { FinancingInput, FinancingOut, financingAmounts, toFinancingOut } from '../schemas/financing.ts';
import { type MoneyInput, moneyConverter } from '../schemas/money.ts';
import { convertedResults, resultsOf } from './shared.ts';

export const MAX_ROUNDS = 100;

// A round that fails validation is kept, with its issues and the raw value, instead of failing the
// whole parse: then the handler can add what only the database knows (an invisible company, an
// unknown pari passu round) and answer one 400 that lists every offending field of every round.
const REJECTED = Symbol('rejected round');
interface Rejected {
  issues: z.core.$ZodIssue[];
  raw: unknown;
}
type RoundItem = FinancingInput & { [REJECTED]?: Rejected };

const Round = FinancingInput.catch(
  (c) => ({ [REJECTED]: { issues: c.error.issues, raw: c.input } }) as unknown as FinancingInput,
);

const roundsMessage = `must hold 1 to ${MAX_ROUNDS} financing rounds`;

type Raw = Record<string, unknown>;

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** The rules between fields, checked on the raw round too so a rejected round reports them as well. */
function crossFieldErrors(round: Raw, at: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ['pre_money_valuation', 'round_size']) {
    const money = round[key];
    if (money && typeof money === 'object') {
      const m = money as Raw;
      if (present(m.value) && !present(m.currency)) {
        errors.push({ field: `${at}.${key}.currency`, message: 'is required when value is set' });
      }
    }
  }
  const capped = round.participation_type === 'CAPPED_PARTICIPATING';
  if (capped && !present(round.cap_multiple)) {
    errors.push({
      field: `${at}.cap_multiple`,
      message: 'is required when participation_type is CAPPED_PARTICIPATING',
    });
  } else if (!capped && present(round.cap_multiple)) {
    errors.push({
      field: `${at}.cap_multiple`,
      message: 'is allowed only with participation_type CAPPED_PARTICIPATING',
    });
  }
  const pariPassu = round.pari_passu_rounds;
  if (Array.isArray(pariPassu) && pariPassu.length > 0 && round.seniority_position !== 'PARI_PASSU') {
    errors.push({
      field: `${at}.pari_passu_rounds`,
      message: 'is allowed only with seniority_position PARI_PASSU',
    });
  }
  return errors;
}

/** A custom rate between a currency and itself can only be 1. */
function customRateErrors(round: FinancingInput, at: string, preferred: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ['pre_money_valuation', 'round_size'] as const) {
    const m = round[key];
    if (m?.fx_rate && m.currency === preferred && compareDecimal(m.fx_rate, '1') !== 0) {
      errors.push({
        field: `${at}.${key}.fx_rate`,
        message: `must be 1 when currency is the firm's preferred currency ${preferred}`,
      });
    }
  }
  return errors;
}

function storedMoney(m: MoneyInput | null): StoredMoney {
  if (!m || m.value === null)
    return { value: null, currency: m?.currency ?? null, fx_rate: null, is_custom_rate: null };
  const custom = m.fx_rate !== null && m.fx_rate !== undefined;
  return {
    value: m.value,
    currency: m.currency ?? null,
    fx_rate: custom ? m.fx_rate! : null,
    is_custom_rate: custom,
  };
}

/** Every field error of the request, or none; needs the database for company and round references. */
async function validate(ctx: ToolContext, rounds: RoundItem[]): Promise<FieldError[]> {
  const scope = ctx.principal.scope;
  const errors: FieldError[] = [];
  const raws: (Raw | null)[] = rounds.map((round) => {
    const rejected = round[REJECTED];
    if (!rejected) return round as unknown as Raw;
    return rejected.raw && typeof rejected.raw === 'object' && !Array.isArray(rejected.raw)
      ? (rejected.raw as Raw)
      : null;
  });

  const companyIds = raws.flatMap((r) => (typeof r?.company_id === 'string' ? [r.company_id] : []));
  const visible = await ctx.repos.companies.names(scope, [...new Set(companyIds)]);
  const referenced = raws.flatMap((r) =>
    Array.isArray(r?.pari_passu_rounds)
      ? r.pari_passu_rounds.filter((id): id is string => typeof id === 'string')
      : [],
  );
  const financings =
    referenced.length > 0 ? await ctx.repos.capTable.financingRefs(scope, referenced) : new Map();

  rounds.forEach((round, i) => {
    const at = `financing_rounds[${i}]`;
    const own: FieldError[] = [];
    const rejected = round[REJECTED];
    if (rejected) {
      const issues = rejected.issues.map((issue) => ({
        ...issue,
        path: ['financing_rounds', i, ...issue.path],
      }));
      own.push(...inputError(new z.ZodError(issues)).errors);
    }
    const raw = raws[i];
    if (raw) {
      own.push(...crossFieldErrors(raw, at));
      if (!rejected) own.push(...customRateErrors(round, at, ctx.principal.firm.preferred_currency));
      const companyId = raw.company_id;
      if (typeof companyId === 'string' && companyId !== '' && !visible.has(companyId)) {
        own.push(companyNotFound(`${at}.company_id`, companyId));
      }
      if (typeof companyId === 'string' && visible.has(companyId) && Array.isArray(raw.pari_passu_rounds)) {
        const unknown = raw.pari_passu_rounds.filter(
          (id) => typeof id === 'string' && financings.get(id)?.company_id !== companyId,
        );
        if (unknown.length > 0) {
          own.push({
            field: `${at}.pari_passu_rounds`,
            message:
              `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a financing' : 'are not financings'} of ` +
              `company ${companyId}; call get_financing_events with company_ids [${companyId}] for valid ids`,
          });
        }
      }
    }
    // One message per field is enough: a rule error on a field that already failed adds nothing.
    const seen = new Set<string>();
    for (const e of own) {
      if (seen.has(e.field)) continue;
      seen.add(e.field);
      errors.push(e);
    }
  });
  return errors;
}

export const addFinancingRounds = defineTool({
  name: 'add_financing_rounds',
  title: 'Add financing rounds to cap tables',
  description:
    'Adds 1 to 100 financing rounds to cap tables you can access, all or none; a 400 names each offending field as financing_rounds[i].field. Needs the cap-table permission. Returns the created rounds in request order.',
  input: z.object({
    financing_rounds: z
      .array(Round)
      .min(1, { error: roundsMessage })
      .max(MAX_ROUNDS, { error: roundsMessage })
      .describe(`The rounds to add, 1 to ${MAX_ROUNDS}; an id given with a round is ignored.`),
  }),
  output: resultsOf(FinancingOut),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  async handler(ctx, input) {
    const rounds = input.financing_rounds as RoundItem[];
    const errors = await validate(ctx, rounds);
    if (errors.length > 0) {
      throwIfUnknownCompany(errors);
      const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      const allMissing = errors.every((e) => e.message === 'is required');
      throw allMissing
        ? new MissingParameter(`missing ${summary}`, errors)
        : new InvalidInput(`invalid financing rounds: ${summary}`, errors);
    }

    const now = nowIso(ctx.clock.now());
    const prepared = rounds.map((r) => ({
      input: r,
      pre_money: storedMoney(r.pre_money_valuation),
      round_size: storedMoney(r.round_size),
    }));
    const fx = await moneyConverter(
      ctx,
      prepared.flatMap((p) => financingAmounts({ ...p, closing_date: p.input.closing_date })),
      { includeFxDetails: true },
    );
    // A table rate is recorded with the round as well, so the stored row says what it was converted at.
    const withRate = (money: StoredMoney, date: string): StoredMoney =>
      money.value === null ? money : { ...money, fx_rate: fx.rate(money, date).rate };
    const rows: NewFinancing[] = prepared.map(({ input: r, pre_money, round_size }) => ({
      id: prefixedId('fin'),
      company_id: r.company_id,
      name: r.name,
      closing_date: r.closing_date,
      pre_money: withRate(pre_money, r.closing_date),
      round_size: withRate(round_size, r.closing_date),
      round_size_converted_value: fx.convertedValue(round_size, r.closing_date),
      fully_diluted_shares: r.fully_diluted_shares,
      is_crypto: r.is_crypto,
      liquidation_multiple: r.liquidation_multiple ?? null,
      cap_multiple: r.cap_multiple ?? null,
      seniority_position: r.seniority_position ?? null,
      participation_type: r.participation_type ?? null,
      created_at: now,
      co_investors: r.co_investors.map((c) => ({ name: c.name, is_lead: c.is_lead })),
      pari_passu_ids: [...new Set(r.pari_passu_rounds ?? [])],
    }));
    await addFinancingRecords(ctx, rows, now);

    const created = await ctx.repos.capTable.financingsById(
      ctx.principal.scope,
      rows.map((r) => r.id),
    );
    const byId = new Map(created.map((r) => [r.id, r]));
    const ordered = rows.map((r) => byId.get(r.id)!);
    return convertedResults(ctx, ordered, true, { amounts: financingAmounts, out: toFinancingOut });
  },
});
