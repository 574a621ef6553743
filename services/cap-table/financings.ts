import { compareDecimal } from '../../core/decimal.ts';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type { FinancingRecord, NewFinancing, StoredMoney } from '../../db/repos/cap-table.ts';
import { type ServiceContext, scopeOf } from '../changes.ts';
import { rateTable } from '../rates.ts';
import {
  addError,
  checkCompany,
  fail,
  type Item,
  type MoneyIn,
  type Raw,
  storedMoney,
  throwIfInvalid,
  visibleCompanies,
} from './items.ts';
import { writeFinancings } from './records.ts';

/** A financing round as add_financing_rounds takes it, parsed. */
export interface FinancingIn {
  company_id: string;
  name: string;
  pre_money_valuation: MoneyIn | null;
  round_size: MoneyIn | null;
  fully_diluted_shares: string | null;
  closing_date: string;
  co_investors: { name: string; is_lead: boolean }[];
  is_crypto: boolean;
  liquidation_multiple?: string | null | undefined;
  cap_multiple?: string | null | undefined;
  seniority_position?: string | null | undefined;
  participation_type?: string | null | undefined;
  pari_passu_rounds?: string[] | null | undefined;
}

const AMOUNTS = ['pre_money_valuation', 'round_size'] as const;

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** The rules between fields, checked on the raw round too so a rejected round reports them as well. */
function checkFields(item: Item<FinancingIn>, round: Raw): void {
  for (const key of AMOUNTS) {
    const m = round[key];
    if (m && typeof m === 'object' && present((m as Raw).value) && !present((m as Raw).currency)) {
      fail(item, `${key}.currency`, 'is required when value is set');
    }
  }
  const capped = round.participation_type === 'CAPPED_PARTICIPATING';
  if (capped && !present(round.cap_multiple)) {
    fail(item, 'cap_multiple', 'is required when participation_type is CAPPED_PARTICIPATING');
  } else if (!capped && present(round.cap_multiple)) {
    fail(item, 'cap_multiple', 'is allowed only with participation_type CAPPED_PARTICIPATING');
  }
  const pariPassu = round.pari_passu_rounds;
  if (Array.isArray(pariPassu) && pariPassu.length > 0 && round.seniority_position !== 'PARI_PASSU') {
    fail(item, 'pari_passu_rounds', 'is allowed only with seniority_position PARI_PASSU');
  }
}

/** A custom rate between a currency and itself can only be 1. */
function checkCustomRates(item: Item<FinancingIn>, round: FinancingIn, preferred: string): void {
  for (const key of AMOUNTS) {
    const m = round[key];
    if (m?.fx_rate && m.currency === preferred && compareDecimal(m.fx_rate, '1') !== 0) {
      fail(item, `${key}.fx_rate`, `must be 1 when currency is the firm's preferred currency ${preferred}`);
    }
  }
}

/** Every rule of the request, the ones that need the database (companies, pari passu rounds) too. */
async function validate(ctx: ServiceContext, items: Item<FinancingIn>[]): Promise<void> {
  const visible = await visibleCompanies(ctx, items);
  const referenced = items.flatMap((i) =>
    Array.isArray(i.raw?.pari_passu_rounds)
      ? i.raw.pari_passu_rounds.filter((id): id is string => typeof id === 'string')
      : [],
  );
  const financings =
    referenced.length > 0 ? await ctx.repos.capTable.financingRefs(scopeOf(ctx), referenced) : new Map();
  for (const item of items) {
    // One message per field is enough, a schema error's too.
    item.errors = item.errors.filter((e, i, all) => all.findIndex((x) => x.field === e.field) === i);
    const raw = item.raw;
    if (!raw) continue;
    checkFields(item, raw);
    if (item.ok) checkCustomRates(item, item.ok, ctx.principal.firm.preferred_currency);
    if (!checkCompany(item, visible) || !Array.isArray(raw.pari_passu_rounds)) continue;
    const companyId = raw.company_id as string;
    const unknown = raw.pari_passu_rounds.filter(
      (id) => typeof id === 'string' && financings.get(id)?.company_id !== companyId,
    );
    if (unknown.length > 0) {
      addError(item, {
        field: `${item.at}.pari_passu_rounds`,
        message:
          `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a financing' : 'are not financings'} of ` +
          `company ${companyId}; call get_financing_events with company_ids [${companyId}] for valid ids`,
      });
    }
  }
  throwIfInvalid('financing rounds', [items]);
}

/** The rows of valid rounds, each amount with the table rate it was converted at (unless custom). */
async function rowsOf(ctx: ServiceContext, rounds: FinancingIn[], now: string): Promise<NewFinancing[]> {
  const prepared = rounds.map((r) => ({
    input: r,
    pre_money: storedMoney(r.pre_money_valuation),
    round_size: storedMoney(r.round_size),
  }));
  const fx = await rateTable(
    ctx,
    prepared.flatMap((p) => [
      { money: p.pre_money, date: p.input.closing_date },
      { money: p.round_size, date: p.input.closing_date },
    ]),
  );
  const withRate = (money: StoredMoney, date: string): StoredMoney =>
    money.value === null ? money : { ...money, fx_rate: fx.rate(money, date).rate };
  return prepared.map(({ input: r, pre_money, round_size }) => ({
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
}

/**
 * Adds financing rounds to cap tables the caller can access, all or none: one 400 names every
 * offending field of every round. Returns the stored rounds in request order.
 */
export async function addFinancingRounds(
  ctx: ServiceContext,
  items: Item<FinancingIn>[],
): Promise<FinancingRecord[]> {
  await validate(ctx, items);
  const now = nowIso(ctx.clock.now());
  const rows = await rowsOf(
    ctx,
    items.map((i) => i.ok!),
    now,
  );
  await writeFinancings(ctx, rows, now);
  const created = await ctx.repos.capTable.financingsById(
    scopeOf(ctx),
    rows.map((r) => r.id),
  );
  const byId = new Map(created.map((r) => [r.id, r]));
  return rows.map((r) => byId.get(r.id)!);
}
