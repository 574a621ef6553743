/**
 * The deterministic demo data set (`portfolio seed --demo`, and `serve` on an empty database):
 * firm `demo` ("Demo Ventures", USD) with 28 companies and everything around them, and a smaller
 * firm `northwind` ("Northwind Capital", EUR) so isolation between firms can be seen.
 *
 * Every value comes from a seeded PRNG and a fixed calendar (data months November 2021 to October
 * 2026), so two seeds produce identical rows; the only exceptions are the scrypt hashes of the
 * passwords and of the OAuth client secret, which have random salts.
 */
import type { Knex } from 'knex';
import { hashSecret } from '../../core/secrets.ts';
import { type DemoMark, markDemo } from '../demo.ts';
import { addInvestorMetrics, buildCapTable } from './demo-captable.ts';
import {
  addCustomColumns,
  addDocuments,
  addInformationRequests,
  addNotes,
  addOfficeDocuments,
} from './demo-content.ts';
import { addBudgets, addCompanyMetrics, addCustomMetrics } from './demo-metrics.ts';
import { simulateCompany } from './demo-model.ts';
import { addFairValueOverrides } from './demo-returns.ts';
import { FIRMS, type FirmSpec, slugify } from './demo-world.ts';
import { FxTable } from './fx.ts';
import { IdGen, Rng } from './random.ts';
import { type CompanyCtx, type FirmCtx, type Row, SEED_TABLES, SeedRows } from './rows.ts';
import { addDays, DEMO_TODAY, earlier, instant, later } from './values.ts';

export const DEMO = {
  firmSlug: 'demo',
  email: 'demo@example.com',
  password: 'demo-password',
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
} as const;

/** Rows inserted, per table. */
export type SeedSummary = Record<string, number>;

const SEED = 'portfolio-demo-v1';

/** Slow hashes, computed before the transaction: password per user email, and the client secret. */
export interface DemoSecrets {
  passwords: Map<string, string>;
  clientSecret: string;
}

export async function hashDemoSecrets(): Promise<DemoSecrets> {
  const users = FIRMS.flatMap((f) => f.users);
  const [clientSecret, ...hashes] = await Promise.all([
    hashSecret(DEMO.clientSecret),
    ...users.map((u) => hashSecret(u.password)),
  ]);
  return { passwords: new Map(users.map((u, i) => [u.email, hashes[i]!])), clientSecret: clientSecret! };
}

/** Every row of the demo data set, in memory. Pure: the same rows every time for the same secrets. */
export function buildDemoRows(secrets: DemoSecrets): SeedRows {
  const rows = new SeedRows();
  const ids = new IdGen(`${SEED}/ids`);
  const root = new Rng(SEED);
  const fx = new FxTable(root.fork('fx'));
  for (const spec of FIRMS) buildFirm(spec, { rows, ids, fx, root, secrets });
  return rows;
}

interface Shared {
  rows: SeedRows;
  ids: IdGen;
  fx: FxTable;
  root: Rng;
  secrets: DemoSecrets;
}

function buildFirm(spec: FirmSpec, shared: Shared): FirmCtx {
  const { rows, ids, fx, secrets } = shared;
  const rng = shared.root.fork(spec.key);
  const firm: FirmCtx = {
    spec,
    id: ids.next('frm'),
    rows,
    ids,
    fx,
    rng,
    users: new Map(),
    funds: new Map(),
    companies: [],
    customCategories: new Map(),
  };
  const createdDate = spec.createdAt.slice(0, 10);
  rows.add('firms', {
    id: firm.id,
    slug: spec.slug,
    name: spec.name,
    preferred_currency: spec.currency,
    country: spec.country,
    city: spec.city,
    enabled_feature_flags: '',
    created_at: spec.createdAt,
  });

  spec.users.forEach((u, i) => {
    const id = ids.next('usr');
    firm.users.set(u.key, { id, name: `${u.firstName} ${u.lastName}`, email: u.email, role: u.role });
    rows.add('users', {
      id,
      firm_id: firm.id,
      email: u.email,
      first_name: u.firstName,
      last_name: u.lastName,
      password_hash: secrets.passwords.get(u.email)!,
      role: u.role,
      all_companies: !u.companies,
      can_view_documents: u.documents,
      can_edit_cap_table: u.capTable,
      is_active: true,
      created_at: instant(addDays(createdDate, i * 3), 9 + i),
    });
  });

  spec.funds.forEach((f) => {
    const id = ids.next('fnd');
    firm.funds.set(f.key, { id, name: f.name });
    rows.add('funds', {
      id,
      firm_id: firm.id,
      name: f.name,
      size: f.size,
      vintage: f.vintage,
      currency: f.currency,
      created_at: instant(addDays(createdDate, 1), 10),
    });
  });

  // Companies: the operating model first, since cap tables and metrics both follow from it.
  spec.companies.forEach((c, i) => {
    const companyRng = rng.fork(`company/${c.name}`);
    const id = ids.next('cmp');
    const model = simulateCompany(spec, c, companyRng.fork('model'), (prefix) => ids.next(prefix));
    const company: CompanyCtx = {
      spec: c,
      id,
      slug: slugify(c.name),
      rng: companyRng,
      model,
      firstDate: c.rounds[0]!.date,
    };
    firm.companies.push(company);
    const added = later(createdDate, addDays(company.firstDate, -30));
    const lastBook = model.books[model.books.length - 1]!;
    rows.add('companies', {
      id,
      firm_id: firm.id,
      name: c.name,
      slug: company.slug,
      description: c.description,
      sector: c.sector,
      firm_sector: c.firmSector,
      city: c.city,
      status: c.status,
      unique_ref: `${spec.refPrefix}-${String(i + 1).padStart(4, '0')}`,
      website: `https://${company.slug}.example`,
      logo_url: `https://logos.example/${company.slug}.png`,
      fiscal_year_end: c.fiscalYearEnd,
      reporting_currency: c.currency,
      investment_lead_id: firm.users.get(c.lead)!.id,
      created_at: instant(added, 10, i),
      updated_at: instant(earlier(addDays(lastBook.date, 20), DEMO_TODAY), 8, i),
    });
  });

  for (const u of spec.users) {
    for (const slug of u.companies ?? []) {
      const company = firm.companies.find((c) => c.slug === slug);
      if (!company) throw new Error(`user ${u.email}: unknown company ${slug}`);
      rows.add('user_companies', { user_id: firm.users.get(u.key)!.id, company_id: company.id });
    }
  }

  spec.customMetrics.forEach((m, i) => {
    const id = ids.next('cat');
    firm.customCategories.set(m.name, { id, name: m.name, kind: m.type, pointInTime: m.pointInTime });
    rows.add('metric_categories', {
      id,
      firm_id: firm.id,
      name: m.name,
      is_standard: false,
      category_type: m.type,
      is_point_in_time: m.pointInTime,
      is_archived: m.archived ?? false,
      is_multiple: false,
      choices: m.choices ? JSON.stringify(m.choices) : null,
      created_at: instant(addDays(createdDate, 30 + i), 15),
    });
  });

  // FX: every currency any of the firm's companies reports in, into the firm's currency.
  const currencies = [...new Set(spec.companies.map((c) => c.currency))];
  for (const r of fx.rows(currencies, spec.currency)) {
    rows.add('fx_rates', {
      id: ids.next('fx'),
      firm_id: firm.id,
      from_currency: r.from,
      to_currency: r.to,
      date: r.date,
      rate: r.rate,
    });
  }

  for (const company of firm.companies) {
    const capTable = buildCapTable(firm, company);
    addCompanyMetrics(firm, company);
    addInvestorMetrics(firm, company, capTable);
    addFairValueOverrides(firm, company, capTable);
    addBudgets(firm, company);
    addCustomMetrics(firm, company);
  }

  const submitted = addInformationRequests(firm);
  firm.companies.forEach((company, i) => {
    addDocuments(firm, company, i, submitted);
    addNotes(firm, company);
  });
  addCustomColumns(firm);

  if (spec.key === 'demo') {
    rows.add('oauth_applications', {
      id: ids.next('app'),
      firm_id: firm.id,
      user_id: firm.users.get('demo')!.id,
      name: 'Demo integration',
      client_id: DEMO.clientId,
      client_secret_hash: secrets.clientSecret,
      created_at: instant(addDays(createdDate, 2), 10),
      revoked_at: null,
    });
    // Last, so the ids drawn before stay as they were.
    addOfficeDocuments(firm);
  }
  return firm;
}

/** SQLite binds at most 32766 parameters and 500 compound SELECT terms per statement. */
function chunkSize(sample: Row): number {
  return Math.max(1, Math.min(500, Math.floor(30_000 / Object.keys(sample).length)));
}

/** Inserts the whole demo data set in one transaction: all of it or nothing. */
export async function seedDemo(db: Knex): Promise<SeedSummary> {
  await refuseExisting(db);
  const secrets = await hashDemoSecrets();
  const rows = buildDemoRows(secrets);
  await db.transaction(async (trx) => {
    await refuseExisting(trx);
    for (const table of SEED_TABLES) {
      const all = rows.get(table);
      if (all.length === 0) continue;
      const size = chunkSize(all[0]!);
      for (let i = 0; i < all.length; i += size) await trx(table).insert(all.slice(i, i + size));
    }
    await markDemo(trx, demoMarks(rows));
  });
  return rows.counts();
}

/** Every seeded row that carries or grants a credential written in the source (the seed issues no tokens). */
function demoMarks(rows: SeedRows): DemoMark[] {
  const label = (row: Row, field: string) => String(row[field]);
  return [
    ...rows.get('firms').map((r) => ({ kind: 'firm' as const, id: label(r, 'id'), label: label(r, 'slug') })),
    ...rows
      .get('users')
      .map((r) => ({ kind: 'user' as const, id: label(r, 'id'), label: label(r, 'email') })),
    ...rows.get('oauth_applications').map((r) => ({
      kind: 'application' as const,
      id: label(r, 'id'),
      label: label(r, 'client_id'),
    })),
  ];
}

async function refuseExisting(db: Knex): Promise<void> {
  const slugs = FIRMS.map((f) => f.slug);
  const existing = (await db('firms').whereIn('slug', slugs).first('slug')) as { slug: string } | undefined;
  if (existing) throw new Error(`firm "${existing.slug}" already exists: the demo data is already loaded`);
}

/** True when the database holds no firm at all (a fresh installation). */
export async function isDatabaseEmpty(db: Knex): Promise<boolean> {
  const row = await db('firms').first('id');
  return row === undefined;
}
