import { convertDecimal } from '../core/decimal.ts';
import type { Principal } from '../core/principal.ts';
import type { StoredMoney } from '../db/repos/cap-table.ts';
import { type RateProbe, rateKey } from '../db/repos/fx-rates.ts';
import type { ReadRepos } from '../db/repos/read.ts';

/** An amount to convert, with the date its rate applies on (closing date, issue date, transaction date). */
export interface DatedMoney {
  money: StoredMoney;
  date: string;
}

export interface ResolvedRate {
  rate: string | null;
  custom: boolean;
}

export function hasAmount(money: StoredMoney): money is StoredMoney & { value: string; currency: string } {
  return money.value !== null && money.currency !== null;
}

/**
 * The rates into the firm's preferred currency of a set of amounts. Loaded once per request with every
 * rate the request needs, so a whole cap table costs one batch of rate look-ups.
 */
export class RateTable {
  constructor(
    readonly preferred: string,
    private readonly table: Map<string, string>,
  ) {}

  /** The rate for an amount: its custom rate, 1 in the preferred currency, else the table's, else the one stored with it. */
  rate(money: StoredMoney, date: string): ResolvedRate {
    if (!hasAmount(money)) return { rate: null, custom: false };
    if (money.is_custom_rate && money.fx_rate) return { rate: money.fx_rate, custom: true };
    if (money.currency === this.preferred) return { rate: '1', custom: false };
    return { rate: this.table.get(rateKey(money.currency, date)) ?? money.fx_rate ?? null, custom: false };
  }

  /** value × rate, exact, to at most CONVERTED_SCALE places (db/decimal.ts); null without a rate. */
  convertedValue(money: StoredMoney, date: string): string | null {
    const { rate } = this.rate(money, date);
    if (rate === null || money.value === null) return null;
    if (rate === '1') return money.value;
    return convertDecimal(money.value, rate);
  }
}

/** The firm's table rates (latest on or before each date) of every amount that needs one. */
export async function loadRates(
  ctx: { repos: ReadRepos; principal: Principal },
  amounts: readonly DatedMoney[],
): Promise<Map<string, string>> {
  const preferred = ctx.principal.firm.preferred_currency;
  const probes: RateProbe[] = [];
  for (const { money, date } of amounts) {
    if (hasAmount(money) && money.currency !== preferred && !(money.is_custom_rate && money.fx_rate)) {
      probes.push({ currency: money.currency, date });
    }
  }
  return probes.length > 0
    ? await ctx.repos.capTable.latestRates(ctx.principal.firm.id, preferred, probes)
    : new Map<string, string>();
}

/** A rate table over every amount of `amounts`. */
export async function rateTable(
  ctx: { repos: ReadRepos; principal: Principal },
  amounts: readonly DatedMoney[],
): Promise<RateTable> {
  return new RateTable(ctx.principal.firm.preferred_currency, await loadRates(ctx, amounts));
}
