import type { Knex } from 'knex';
import { chunk } from './util.ts';

/** A currency to convert on a date. */
export interface RateProbe {
  currency: string;
  date: string;
}

export function rateKey(currency: string, date: string): string {
  return `${currency}|${date}`;
}

/**
 * The rate of each probe's currency into `to`, from the firm's table: the latest on or before the
 * probe's date. Keyed by rateKey; probes without a known rate are absent. One indexed probe per
 * distinct (currency, date) pair, up to 100 of them in one query.
 */
export async function latestRates(
  db: Knex | Knex.Transaction,
  firmId: string,
  to: string,
  probes: readonly RateProbe[],
): Promise<Map<string, string>> {
  const rates = new Map<string, string>();
  const wanted = [...new Map(probes.map((p) => [rateKey(p.currency, p.date), p])).values()];
  for (const batch of chunk(wanted, 100)) {
    // Each probe sits in a FROM subquery: SQLite allows ORDER BY/LIMIT in a compound member only there.
    const queries = batch.map((p, k) =>
      db.select('*').from(
        db('fx_rates')
          // k is our own loop index, never input: it ties each answer back to its probe.
          .select(db.raw(`${k} as k`), 'rate')
          .where({ firm_id: firmId, from_currency: p.currency, to_currency: to })
          .where('date', '<=', p.date)
          .orderBy('date', 'desc')
          .limit(1)
          .as(`p${k}`),
      ),
    );
    const [first, ...rest] = queries;
    const found = (await (rest.length > 0 ? first!.unionAll(rest) : first!)) as {
      k: number | string;
      rate: string;
    }[];
    for (const f of found) {
      const p = batch[Number(f.k)]!;
      rates.set(rateKey(p.currency, p.date), f.rate);
    }
  }
  return rates;
}
