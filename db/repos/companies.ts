import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { kept } from '../kept.ts';
import { isPostgres } from '../knex.ts';
import type { Counted, Page } from '../types.ts';
import {
  containsPattern,
  countAndPageKept,
  isUniqueViolation,
  scoped,
  whereInJson,
  whereLike,
} from './util.ts';

export interface CompanyRow {
  id: string;
  firm_id: string;
  name: string;
  slug: string;
  description: string;
  sector: string;
  firm_sector: string;
  city: string;
  status: string;
  unique_ref: string;
  website: string;
  logo_url: string;
  fiscal_year_end: string;
  reporting_currency: string;
  investment_lead_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A new company: its keys, slug and times; the columns not given take their defaults. */
export type NewCompany = Pick<
  CompanyRow,
  'id' | 'firm_id' | 'slug' | 'reporting_currency' | 'created_at' | 'updated_at'
> &
  Partial<Omit<CompanyRow, 'investment_lead_id'>> & { investment_lead_id?: string | null };

export interface CompanyWithFunds extends CompanyRow {
  invested_fund_ids: string[];
}

export interface CompanyFilter {
  ids?: string[];
  name?: string;
  sector?: string;
  city?: string;
  /** Exact status, case-insensitive (active, exited, written-off …). */
  status?: string;
  /** Exact sector, case-insensitive. */
  sectorIs?: string;
  fundId?: string;
  reportingCurrency?: string;
}

/** The fields of a company that an update may change. */
export type CompanyChanges = Partial<
  Pick<
    CompanyRow,
    | 'name'
    | 'description'
    | 'sector'
    | 'firm_sector'
    | 'city'
    | 'website'
    | 'fiscal_year_end'
    | 'investment_lead_id'
  >
>;

/** Every column a write may set on a stored company (the API's writes set the `CompanyChanges`, an import more). */
export type CompanyColumns = Partial<
  Omit<CompanyRow, 'id' | 'firm_id' | 'slug' | 'created_at' | 'updated_at'>
>;

/** How often a create tries the next free slug when a concurrent create took the one it chose. */
const SLUG_ATTEMPTS = 5;

/** A list filter's values as its query binds them (patterns made, case folded), so that it is kept. */
type CompanyValues = ReturnType<typeof listValues>;
function listValues(scope: Scope, filter: CompanyFilter & { slugs?: string[] }) {
  const pattern = (text: string | undefined) => (text ? containsPattern(text) : undefined);
  return {
    firmId: scope.firmId,
    companyIds: scope.companyIds,
    ids: filter.ids,
    slugs: filter.slugs,
    name: pattern(filter.name),
    sector: pattern(filter.sector),
    city: pattern(filter.city),
    status: filter.status ? filter.status.toLowerCase() : undefined,
    sectorIs: filter.sectorIs ? filter.sectorIs.toLowerCase() : undefined,
    reportingCurrency: filter.reportingCurrency || undefined,
    fundId: filter.fundId || undefined,
  };
}

function filtered(db: Knex, p: CompanyValues) {
  const base = scoped(db('companies'), p, 'companies', 'id');
  if (p.ids) base.whereIn('companies.id', p.ids);
  if (p.slugs) base.whereIn('companies.slug', p.slugs);
  if (p.name) whereLike(base, 'companies.name', p.name);
  if (p.sector) whereLike(base, 'companies.sector', p.sector);
  if (p.city) whereLike(base, 'companies.city', p.city);
  if (p.status) base.whereRaw('lower(companies.status) = ?', [p.status]);
  if (p.sectorIs) base.whereRaw('lower(companies.sector) = ?', [p.sectorIs]);
  if (p.reportingCurrency) base.where('companies.reporting_currency', p.reportingCurrency);
  if (p.fundId) {
    base.whereIn('companies.id', db('company_funds').where('fund_id', p.fundId).select('company_id'));
  }
  return base;
}

const byName = [{ column: 'companies.name' }, { column: 'companies.id' }];
const countOf = kept((db, p: CompanyValues) => filtered(db, p).count({ n: '*' }));
const pageOf = kept((db, p: CompanyValues & { limit: number; offset: number }) =>
  filtered(db, p).orderBy(byName).select('*').limit(p.limit).offset(p.offset),
);
const allOf = kept((db, p: CompanyValues) => filtered(db, p).orderBy(byName).select('*'));
/** One company by id or by slug. */
const oneOf = kept(
  (db, p: { firmId: string; companyIds: Scope['companyIds']; id?: string; slug?: string }) => {
    const qb = scoped(db('companies'), p, 'companies', 'id');
    return (p.id ? qb.where('companies.id', p.id) : qb.where('companies.slug', p.slug!)).first();
  },
);
const fundsOf = kept((db, p: { ids: string }) =>
  whereInJson(db, db('company_funds'), 'company_id', p.ids)
    .orderBy(['company_id', 'fund_id'])
    .select('company_id', 'fund_id'),
);

export function companiesRepo(db: Knex) {
  async function withFunds(rows: CompanyRow[]): Promise<CompanyWithFunds[]> {
    if (rows.length === 0) return [];
    const links = await fundsOf.rows<{ company_id: string; fund_id: string }>(db, {
      ids: JSON.stringify(rows.map((r) => r.id)),
    });
    const byCompany = new Map<string, string[]>();
    for (const l of links) {
      const list = byCompany.get(l.company_id) ?? [];
      list.push(l.fund_id);
      byCompany.set(l.company_id, list);
    }
    // The rows were just read for this call: each takes its funds in place rather than as a copy.
    return rows.map((r) => {
      const row = r as CompanyWithFunds;
      row.invested_fund_ids = byCompany.get(r.id) ?? [];
      return row;
    });
  }

  return {
    async list(scope: Scope, filter: CompanyFilter, page: Page): Promise<Counted<CompanyWithFunds>> {
      const result = await countAndPageKept<CompanyRow, CompanyValues>(
        db,
        countOf,
        pageOf,
        listValues(scope, filter),
        page,
      );
      return { count: result.count, rows: await withFunds(result.rows) };
    },
    /** Every visible company matching the filter, ordered by name (for portfolio-wide computations). */
    async all(scope: Scope, filter: CompanyFilter): Promise<CompanyRow[]> {
      return allOf.rows<CompanyRow>(db, listValues(scope, filter));
    },
    /** The distinct statuses and sectors of the visible companies, for error messages. */
    async distinctValues(scope: Scope, column: 'status' | 'sector' | 'city'): Promise<string[]> {
      const rows = (await scoped(db('companies'), scope, 'companies', 'id')
        .distinct(`companies.${column} as v`)
        .orderBy('v')) as { v: string }[];
      return rows.map((r) => r.v).filter((v) => v !== '');
    },
    /** One visible company by id or slug, without its funds (a lookup, not a result). */
    async find(scope: Scope, by: { id: string } | { slug: string }): Promise<CompanyRow | undefined> {
      return oneOf.first<CompanyRow>(db, {
        firmId: scope.firmId,
        companyIds: scope.companyIds,
        id: 'id' in by ? by.id : undefined,
        slug: 'slug' in by ? by.slug : undefined,
      });
    },
    async get(scope: Scope, id: string): Promise<CompanyWithFunds | undefined> {
      const row = await this.find(scope, { id });
      return row ? (await withFunds([row]))[0] : undefined;
    },
    /** The visible companies with these slugs, by slug. */
    async bySlugs(scope: Scope, slugs: string[]): Promise<Map<string, CompanyRow>> {
      if (slugs.length === 0) return new Map();
      const rows = await allOf.rows<CompanyRow>(db, listValues(scope, { slugs }));
      return new Map(rows.map((r) => [r.slug, r]));
    },
    /** Every visible company's id and name (for lookups that must not page). */
    async names(scope: Scope, ids: string[]): Promise<Map<string, CompanyRow>> {
      if (ids.length === 0) return new Map();
      const rows = await allOf.rows<CompanyRow>(db, listValues(scope, { ids }));
      return new Map(rows.map((r) => [r.id, r]));
    },
    /**
     * Inserts a company under the first slug of `base`, `base-2`, `base-3` … that no company of its firm
     * (visible to the caller or not) has, and returns that slug. On PostgreSQL, creates of one base slug
     * in one firm take turns (a transaction-scoped advisory lock, so across nodes too): each reads the
     * slugs of the ones before it once they commit. Each insert runs in its own savepoint, so a slug
     * taken meanwhile by another path (another base's `-N` suffix) only moves this one on.
     */
    async createWithFreeSlug(company: Omit<CompanyRow, 'slug'>, base: string): Promise<string> {
      return db.transaction(async (trx) => {
        if (isPostgres(trx)) {
          await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
            `companies.slug ${company.firm_id} ${base}`,
          ]);
        }
        const refused = new Set<string>();
        for (let attempt = 1; ; attempt++) {
          const taken = new Set(
            (
              (await trx('companies')
                .where('firm_id', company.firm_id)
                .where((qb) => qb.where('slug', base).orWhere('slug', 'like', `${base}-%`))
                .select('slug')) as { slug: string }[]
            ).map((r) => r.slug),
          );
          let slug = base;
          for (let n = 2; taken.has(slug) || refused.has(slug); n++) slug = `${base}-${n}`;
          try {
            await trx.transaction(async (savepoint) => {
              await savepoint('companies').insert({ ...company, slug });
            });
            return slug;
          } catch (err) {
            if (!isUniqueViolation(err) || attempt >= SLUG_ATTEMPTS) throw err;
            refused.add(slug);
          }
        }
      });
    },
    /** Changes the given fields of one company of the firm; false when it does not exist. */
    async update(firmId: string, id: string, changes: CompanyColumns, updatedAt: string): Promise<boolean> {
      const n = await db('companies')
        .where({ firm_id: firmId, id })
        .update({ ...changes, updated_at: updatedAt });
      return Number(n) > 0;
    },
    async create(company: NewCompany, fundIds: string[] = []): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('companies').insert(company);
        if (fundIds.length > 0) {
          await trx('company_funds').insert(fundIds.map((fund_id) => ({ company_id: company.id, fund_id })));
        }
      });
    },
  };
}
export type CompaniesRepo = ReturnType<typeof companiesRepo>;
