// The bare limits the service is measured against, on node:http with no framework.
//
// `work DATABASE_URL PORT PUBLIC_URL`: the work the service must do for GET /v1/metrics/ and
// GET /v1/companies/, with every statement prepared once: hash the bearer token and resolve it with its
// user and firm (and record its use at most once a minute), the user's company access, the company
// check, the count, the page, the FX rates of the page, the funds and leads of the companies, and the same JSON.
// `bytes FILE PORT`: replies the bytes in FILE (`{"type": …, "body": …}`) to every request.
// Usage: tsx bench/baseline.ts work|bytes …
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { isMonetary } from '../core/categories.ts';
import { convertDecimal, isDecimal } from '../core/decimal.ts';
import { fiscalPeriodEnds } from '../core/fiscal.ts';

type Row = Record<string, unknown>;
/** A statement prepared once; `?` placeholders in order. */
type Query = (params: unknown[]) => Promise<Row[]>;
type Prepare = (name: string, sql: string) => Query;

function sqlitePrepare(file: string): Prepare {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return (_name, sql) => {
    const stmt = db.prepare(sql);
    if (!stmt.reader) {
      return async (params) => {
        stmt.run(...params);
        return [];
      };
    }
    return async (params) => stmt.all(...params) as Row[];
  };
}

function pgPrepare(connection: string): Prepare {
  const pool = new pg.Pool({ connectionString: connection, max: 10 });
  return (name, sql) => {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    return async (values) => (await pool.query({ name, text, values })).rows as Row[];
  };
}

const bool = (v: unknown) => v === true || v === 1;

function workServer(url: string, publicUrl: string) {
  const postgres = !url.startsWith('sqlite:');
  const prepare = postgres ? pgPrepare(url) : sqlitePrepare(url.replace(/^sqlite:(\/\/)?/, ''));
  const byName = postgres ? 'lower(c.name) collate "C", c.name collate "C"' : 'lower(c.name), c.name';
  const userColumns = ['id', 'firm_id', 'all_companies', 'is_active'];
  const firmColumns = ['id', 'preferred_currency'];
  // The index the service names on SQLite (db/repos/metrics.ts); PostgreSQL's planner finds it.
  const hint = postgres ? '' : 'indexed by metric_data_live ';
  const live = 'd.company_id = ? and d.firm_id = ? and d.budget_id is null and d.deleted_at is null';
  // The page leaves out data dated off the company's fiscal calendar, as the service does by default
  // (include_non_fye_aligned): one pair of statements per fiscal year end, prepared once.
  const byYearEnd = new Map<string, { count: Query; page: Query }>();
  function metricStatements(fiscalYearEnd: string) {
    let found = byYearEnd.get(fiscalYearEnd);
    if (found) return found;
    const ends = fiscalPeriodEnds(fiscalYearEnd);
    const cadences = Object.keys(ends);
    const list = (items: readonly string[]) => items.map((i) => `'${i}'`).join(', ');
    const aligned =
      `(d.cadence not in (${list(cadences)})` +
      cadences
        .map((c) => ` or (d.cadence = '${c}' and substr(d.date, 6, 5) in (${list(ends[c]!)}))`)
        .join('') +
      ')';
    const key = fiscalYearEnd.replace(/\W/g, '');
    found = {
      count: prepare(
        `b_mcount_${key}`,
        `select count(*) as n from metric_data d ${hint}where ${live} and ${aligned}`,
      ),
      page: prepare(
        `b_mpage_${key}`,
        'select d.id, d.firm_id, d.company_id, d.category_id, d.cadence, d.date, d.value, d.currency, ' +
          'd.budget_id, d.detailed_source, d.archived, d.deleted_at, d.created_at, d.updated_at, ' +
          'c.name as category_name, c.category_type, c.is_standard from metric_data d ' +
          `${hint}join metric_categories c on c.id = d.category_id where ${live} and ${aligned} ` +
          `order by d.date, ${byName}, d.id limit ? offset ?`,
      ),
    };
    byYearEnd.set(fiscalYearEnd, found);
    return found;
  }
  const q = {
    token: prepare(
      'b_token',
      `select t.*, ${userColumns.map((c) => `u.${c} as u__${c}`).join(', ')}, ` +
        `${firmColumns.map((c) => `f.${c} as f__${c}`).join(', ')} from access_tokens t ` +
        'join users u on u.id = t.user_id join firms f on f.id = u.firm_id where t.token_hash = ? limit 1',
    ),
    touch: prepare('b_touch', 'update access_tokens set last_used_at = ? where id = ?'),
    access: prepare('b_access', 'select company_id from user_companies where user_id = ?'),
    company: prepare('b_company', 'select * from companies where firm_id = ? and id = ? limit 1'),
    rates: postgres
      ? prepare(
          'b_rates',
          'select p.i, (select rate from fx_rates where firm_id = ? and to_currency = ? and from_currency = p.c ' +
            'and date <= p.d order by date desc limit 1) as rate ' +
            'from unnest(?::text[], ?::text[]) with ordinality as p(c, d, i)',
        )
      : undefined,
    rate: prepare(
      'b_rate',
      'select rate from fx_rates where firm_id = ? and to_currency = ? and from_currency = ? and date <= ? ' +
        'order by date desc limit 1',
    ),
    companiesCount: prepare('b_ccount', 'select count(*) as n from companies where firm_id = ?'),
    companiesPage: prepare(
      'b_cpage',
      'select * from companies where firm_id = ? order by name, id limit ? offset ?',
    ),
    leads: prepare(
      'b_leads',
      // The service's statement has one placeholder per id; here the ids are one bound JSON array.
      postgres
        ? 'select id, first_name, last_name, email from users where firm_id = ? and id in ' +
            '(select json_array_elements_text(?::json))'
        : 'select id, first_name, last_name, email from users where firm_id = ? and id in ' +
            '(select value from json_each(?))',
    ),
    funds: prepare(
      'b_funds',
      // The service's statement (db/repos/util.ts whereInJson): the ids as one bound JSON array.
      postgres
        ? 'select company_id, fund_id from company_funds where company_id in ' +
            '(select json_array_elements_text(?::json)) order by company_id, fund_id'
        : 'select company_id, fund_id from company_funds where company_id in (select value from json_each(?)) ' +
            'order by company_id, fund_id',
    ),
  };

  async function principal(req: IncomingMessage) {
    const [scheme, value] = (req.headers.authorization ?? '').split(/\s+/, 2);
    if (scheme?.toLowerCase() !== 'bearer' || !value) return undefined;
    const [row] = await q.token([createHash('sha256').update(value).digest('hex')]);
    const now = new Date().toISOString();
    if (!row || row.revoked_at || (row.expires_at as string) <= now || row.grant_id) return undefined;
    if (row.audience !== 'any' && row.audience !== 'rest') return undefined;
    if (!bool(row.u__is_active) || row.u__firm_id !== row.firm_id) return undefined;
    const last = row.last_used_at as string | null;
    if (row.kind === 'personal' && (!last || Date.parse(last) <= Date.parse(now) - 60_000)) {
      await q.touch([now, row.id]);
    }
    const companyIds = bool(row.u__all_companies)
      ? null
      : (await q.access([row.u__id])).map((r) => r.company_id as string);
    return { firmId: row.f__id as string, preferred: row.f__preferred_currency as string, companyIds };
  }

  function link(u: URL, page: number): string {
    const next = new URL(u);
    next.searchParams.set('page', String(page));
    return `${publicUrl}${next.pathname}${next.search}`;
  }

  async function rates(firmId: string, preferred: string, rows: Row[]): Promise<Map<string, string>> {
    const keys = [
      ...new Set(
        rows.flatMap((r) => (r.currency && r.currency !== preferred ? [`${r.currency}|${r.date}`] : [])),
      ),
    ];
    const found = new Map<string, string>();
    if (keys.length === 0) return found;
    const pairs = keys.map((k) => k.split('|') as [string, string]);
    if (q.rates) {
      const got = await q.rates([firmId, preferred, pairs.map((p) => p[0]), pairs.map((p) => p[1])]);
      for (const r of got) if (r.rate !== null) found.set(keys[Number(r.i) - 1]!, String(r.rate));
    } else {
      for (const [i, [currency, date]] of pairs.entries()) {
        const [r] = await q.rate([firmId, preferred, currency, date]);
        if (r) found.set(keys[i]!, String(r.rate));
      }
    }
    return found;
  }

  async function metrics(u: URL, who: { firmId: string; preferred: string; companyIds: string[] | null }) {
    const companyId = u.searchParams.get('company_id') ?? '';
    const [company] = await q.company([who.firmId, companyId]);
    if (!company || (who.companyIds && !who.companyIds.includes(companyId))) return undefined;
    const page = Number(u.searchParams.get('page') ?? 1);
    const size = Number(u.searchParams.get('page_size') ?? 100);
    const statements = metricStatements(company.fiscal_year_end as string);
    const count = Number((await statements.count([companyId, who.firmId]))[0]?.n ?? 0);
    const rows =
      count > (page - 1) * size
        ? await statements.page([companyId, who.firmId, size, (page - 1) * size])
        : [];
    const found = await rates(who.firmId, who.preferred, rows);
    const preferred = who.preferred;
    const results = rows.map((r) => {
      const rate = !r.currency
        ? null
        : r.currency === preferred
          ? '1'
          : (found.get(`${r.currency}|${r.date}`) ?? null);
      const value = r.value as string;
      const money = isMonetary(r.category_type as string);
      const convertible = money && rate !== null && isDecimal(value);
      const standard = bool(r.is_standard);
      return {
        id: r.id,
        company_id: r.company_id,
        category: standard ? r.category_name : 'custom',
        category_id: r.category_id,
        category_type: r.category_type,
        custom_metric: standard ? null : r.category_name,
        cadence: r.cadence,
        date: r.date,
        value,
        currency: r.currency,
        converted_value: convertible
          ? rate === '1'
            ? value
            : convertDecimal(value, rate!)
          : money
            ? null
            : value,
        preferred_currency: preferred,
        fx_rate: convertible ? Number(rate) : null,
        budget_id: r.budget_id,
        is_budget_metric: r.budget_id !== null,
        detailed_source: r.detailed_source,
        archived: bool(r.archived),
        created_at: r.created_at,
        updated_at: r.updated_at,
        deleted_at: r.deleted_at,
      };
    });
    return { count, page, size, results };
  }

  const leadOf = (l: Row | undefined) => ({
    investment_lead_name: l ? `${l.first_name} ${l.last_name}`.trim() : null,
    investment_lead_email: l ? l.email : null,
  });

  async function companies(u: URL, who: { firmId: string }) {
    const page = Number(u.searchParams.get('page') ?? 1);
    const size = Number(u.searchParams.get('page_size') ?? 100);
    const count = Number((await q.companiesCount([who.firmId]))[0]?.n ?? 0);
    const rows =
      count > (page - 1) * size ? await q.companiesPage([who.firmId, size, (page - 1) * size]) : [];
    const ids = rows.map((r) => r.id as string);
    const funds = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length > 0) {
      for (const f of await q.funds([JSON.stringify(ids)])) {
        funds.get(f.company_id as string)!.push(f.fund_id as string);
      }
    }
    const leadIds = [...new Set(rows.map((r) => r.investment_lead_id).filter((id) => !!id))];
    const leads = new Map<string, Row>();
    if (leadIds.length > 0) {
      for (const l of await q.leads([who.firmId, JSON.stringify(leadIds)])) leads.set(l.id as string, l);
    }
    const results = rows.map((r) => ({
      id: r.id,
      name: r.name,
      slug: r.slug,
      description: r.description,
      sector: r.sector,
      firm_sector: r.firm_sector,
      city: r.city,
      status: r.status,
      unique_ref: r.unique_ref,
      website: r.website,
      logo_url: r.logo_url,
      fiscal_year_end: r.fiscal_year_end,
      reporting_currency: r.reporting_currency,
      investment_lead_id: r.investment_lead_id,
      ...leadOf(leads.get(r.investment_lead_id as string)),
      invested_fund_ids: funds.get(r.id as string),
    }));
    return { count, page, size, results };
  }

  return async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://local');
    const who = await principal(req);
    if (!who) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"detail":"unauthenticated"}');
      return;
    }
    const found =
      u.pathname === '/v1/metrics/'
        ? await metrics(u, who)
        : u.pathname === '/v1/companies/'
          ? await companies(u, who)
          : undefined;
    if (!found) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"not found"}');
      return;
    }
    const body = JSON.stringify({
      count: found.count,
      next:
        (found.page - 1) * found.size + found.results.length < found.count ? link(u, found.page + 1) : null,
      previous: found.page > 1 ? link(u, found.page - 1) : null,
      results: found.results,
    });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(body);
  };
}

function bytesServer(file: string) {
  const { type, body } = JSON.parse(readFileSync(file, 'utf8')) as { type: string; body: string };
  const bytes = Buffer.from(body);
  return (req: IncomingMessage, res: ServerResponse) => {
    // The request body is read, as any server must.
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': type }).end(bytes));
  };
}

const [mode, source = '', port = '8100', publicUrl = 'http://127.0.0.1'] = process.argv.slice(2);
const handle = mode === 'bytes' ? bytesServer(source) : workServer(source, publicUrl);
const server = createServer((req, res) => {
  Promise.resolve(handle(req, res)).catch((err: unknown) => {
    res.writeHead(500).end(String(err));
  });
});
server.listen(Number(port), '127.0.0.1');
