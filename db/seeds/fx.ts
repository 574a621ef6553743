import type { Rng } from './random.ts';
import { type Month, monthRange } from './values.ts';

/**
 * Plausible monthly exchange rates. Each currency has a few anchor points (US dollars per unit,
 * roughly the market level at that month); months in between are interpolated and nudged by a
 * little seeded noise. Cross rates (into EUR) are derived from the same dollar series, so they
 * stay consistent with each other.
 */
const USD_PER_UNIT: Record<string, [string, number][]> = {
  EUR: [
    ['2018-11', 1.14],
    ['2019-12', 1.11],
    ['2020-03', 1.1],
    ['2020-12', 1.22],
    ['2021-06', 1.19],
    ['2021-12', 1.13],
    ['2022-06', 1.05],
    ['2022-09', 0.98],
    ['2022-12', 1.06],
    ['2023-06', 1.09],
    ['2023-10', 1.06],
    ['2023-12', 1.1],
    ['2024-06', 1.07],
    ['2024-12', 1.04],
    ['2025-03', 1.08],
    ['2025-06', 1.16],
    ['2025-12', 1.17],
    ['2026-12', 1.16],
  ],
  GBP: [
    ['2018-11', 1.29],
    ['2019-08', 1.21],
    ['2019-12', 1.32],
    ['2020-03', 1.2],
    ['2020-12', 1.36],
    ['2021-06', 1.39],
    ['2021-12', 1.35],
    ['2022-09', 1.11],
    ['2022-12', 1.21],
    ['2023-06', 1.27],
    ['2023-10', 1.22],
    ['2024-06', 1.27],
    ['2024-09', 1.33],
    ['2024-12', 1.25],
    ['2025-06', 1.36],
    ['2025-12', 1.34],
    ['2026-12', 1.33],
  ],
  CAD: [
    ['2018-11', 0.75],
    ['2020-03', 0.71],
    ['2020-12', 0.78],
    ['2021-06', 0.81],
    ['2021-12', 0.79],
    ['2022-09', 0.73],
    ['2023-06', 0.75],
    ['2024-06', 0.73],
    ['2024-12', 0.7],
    ['2025-06', 0.73],
    ['2026-12', 0.72],
  ],
  INR: [
    ['2018-11', 0.0142],
    ['2020-04', 0.0131],
    ['2021-06', 0.0135],
    ['2022-06', 0.0127],
    ['2022-10', 0.0121],
    ['2023-12', 0.012],
    ['2024-12', 0.0117],
    ['2025-06', 0.0116],
    ['2025-12', 0.0112],
    ['2026-12', 0.0111],
  ],
  SGD: [
    ['2018-11', 0.735],
    ['2020-03', 0.7],
    ['2021-06', 0.75],
    ['2022-06', 0.72],
    ['2022-10', 0.7],
    ['2023-06', 0.74],
    ['2024-12', 0.735],
    ['2025-06', 0.78],
    ['2026-12', 0.775],
  ],
  SEK: [
    ['2018-11', 0.111],
    ['2020-03', 0.099],
    ['2021-06', 0.118],
    ['2022-09', 0.09],
    ['2023-06', 0.093],
    ['2024-06', 0.095],
    ['2024-12', 0.091],
    ['2025-06', 0.105],
    ['2026-12', 0.106],
  ],
};

/** Rough dollars per unit, for sizing amounts in a company's own currency. */
export const USD_ANCHOR: Record<string, number> = {
  USD: 1,
  EUR: 1.1,
  GBP: 1.27,
  CAD: 0.75,
  INR: 0.012,
  SGD: 0.74,
  SEK: 0.095,
};

/** Rates are dated on the first of each month, November 2018 to December 2026. */
export const FX_MONTHS: readonly Month[] = monthRange(2018, 11, 98);

const monthIndex = (key: string) => {
  const [y, m] = key.split('-').map(Number) as [number, number];
  return y * 12 + m - 1;
};

export class FxTable {
  /** currency → month key → dollars per unit (with noise). */
  private readonly usd = new Map<string, Map<string, number>>();

  constructor(rng: Rng) {
    for (const [currency, anchors] of Object.entries(USD_PER_UNIT)) {
      const noise = rng.fork(currency);
      const series = new Map<string, number>();
      for (const month of FX_MONTHS) {
        const i = monthIndex(month.key);
        let k = 0;
        while (k < anchors.length - 2 && monthIndex(anchors[k + 1]![0]) <= i) k++;
        const [ka, va] = anchors[k]!;
        const [kb, vb] = anchors[k + 1]!;
        const t = Math.min(1, Math.max(0, (i - monthIndex(ka)) / (monthIndex(kb) - monthIndex(ka))));
        series.set(month.key, (va + (vb - va) * t) * (1 + noise.normal(0, 0.004)));
      }
      this.usd.set(currency, series);
    }
  }

  private usdPerUnit(currency: string, monthKey: string): number {
    if (currency === 'USD') return 1;
    const v = this.usd.get(currency)?.get(monthKey);
    if (v === undefined) throw new Error(`no FX series for ${currency} at ${monthKey}`);
    return v;
  }

  /** The stored rate (6 decimals) from one currency into another for the month of `date`. */
  rate(from: string, to: string, date: string): string {
    if (from === to) return '1.000000';
    let key = date.slice(0, 7);
    const first = FX_MONTHS[0]!.key;
    const last = FX_MONTHS[FX_MONTHS.length - 1]!.key;
    if (key < first) throw new Error(`no FX rate before ${first}`);
    if (key > last) key = last;
    return (this.usdPerUnit(from, key) / this.usdPerUnit(to, key)).toFixed(6);
  }

  /** Every stored rate for a firm: one per month from each currency into the preferred one. */
  rows(
    currencies: readonly string[],
    to: string,
  ): { from: string; to: string; date: string; rate: string }[] {
    const out: { from: string; to: string; date: string; rate: string }[] = [];
    for (const from of [...currencies].sort()) {
      if (from === to) continue;
      for (const month of FX_MONTHS)
        out.push({ from, to, date: month.start, rate: this.rate(from, to, month.start) });
    }
    return out;
  }
}
