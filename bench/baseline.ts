// The bare limit the service is measured against: node:http, the same two SQL queries per request
// (count and page) through better-sqlite3 prepared statements (or pg), and JSON.stringify.
// Usage: tsx bench/baseline.ts DATABASE_URL PORT
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';

const [url = 'sqlite:bench/data/bench.db', port = '8100'] = process.argv.slice(2);

const metricsWhere = 'd.company_id = $1 and d.deleted_at is null and d.budget_id is null';
const sql = {
  metricsCount: `select count(*) as n from metric_data d where ${metricsWhere}`,
  metricsPage:
    'select d.*, c.name as category, c.category_type from metric_data d join metric_categories c on c.id = d.category_id ' +
    `where ${metricsWhere} order by d.date, c.name, d.id limit 100 offset $2`,
  companiesCount: "select count(*) as n from companies where firm_id = 'bench-firm'",
  companiesPage: "select * from companies where firm_id = 'bench-firm' order by name, id limit 100 offset $1",
};

type Query = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

function sqliteQuery(file: string): Query {
  const db = new Database(file, { readonly: true });
  const cache = new Map<string, Database.Statement>();
  return async (text, params) => {
    let stmt = cache.get(text);
    if (!stmt) {
      stmt = db.prepare(text.replace(/\$\d+/g, '?'));
      cache.set(text, stmt);
    }
    return stmt.all(...params) as Record<string, unknown>[];
  };
}

function pgQuery(connection: string): Query {
  const pool = new pg.Pool({ connectionString: connection, max: 10 });
  return async (text, params) =>
    (await pool.query({ name: text.slice(0, 60) + text.length, text, values: params })).rows;
}

const query = url.startsWith('sqlite:') ? sqliteQuery(url.slice('sqlite:'.length)) : pgQuery(url);

const server = createServer(async (req, res) => {
  try {
    const u = new URL(req.url ?? '/', 'http://local');
    const page = Number(u.searchParams.get('page') ?? 1);
    const offset = (page - 1) * 100;
    let count: number;
    let results: Record<string, unknown>[];
    if (u.pathname === '/v1/metrics/') {
      const company = u.searchParams.get('company_id');
      count = Number((await query(sql.metricsCount, [company]))[0]?.n ?? 0);
      results = await query(sql.metricsPage, [company, offset]);
    } else {
      count = Number((await query(sql.companiesCount, []))[0]?.n ?? 0);
      results = await query(sql.companiesPage, [offset]);
    }
    const body = JSON.stringify({ count, next: null, previous: null, results });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body);
  } catch (err) {
    res.writeHead(500);
    res.end(String(err));
  }
});
server.listen(Number(port), '127.0.0.1', () => console.log(`baseline listening on ${port}`));
