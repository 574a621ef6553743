import type { Knex } from 'knex';
import { financingsRepo } from './cap-table-financings.ts';
import { holdingsRepo } from './cap-table-holdings.ts';
import { overridesRepo } from './cap-table-overrides.ts';
import { latestRates, type RateProbe } from './fx-rates.ts';

export * from './cap-table-types.ts';

/** The cap table of a firm: financings, share classes, securities, transactions and the overrides. */
export function capTableRepo(db: Knex) {
  return {
    ...financingsRepo(db),
    ...holdingsRepo(db),
    ...overridesRepo(db),
    /** The firm's latest rates on or before each probe's date (see fx-rates.ts). */
    latestRates(firmId: string, to: string, probes: RateProbe[]): Promise<Map<string, string>> {
      return latestRates(db, firmId, to, probes);
    },
  };
}
export type CapTableRepo = ReturnType<typeof capTableRepo>;
