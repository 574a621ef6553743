// `npm run bench:answers`: an analyst's everyday questions, asked over MCP of the real server on the
// demo data the way an assistant would: the calls per question and the characters of their results'
// text (what a model reads). Each answer is checked against the figures that answer the question,
// recomputed from detailed results (calls not counted) or, for the questions of answers-rows.ts, from
// the database rows, so a small answer cannot hide a wrong one. Writes a section of bench/RESULTS.md.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { migrateLatest, openDb } from '../db/knex.ts';
import { seedDemo } from '../db/seeds/demo.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/http.ts';
import { demoIds, resultChars } from '../test/helpers/demo-reads.ts';
import { mcpClient } from '../test/helpers/mcp.ts';
import { type Question, rowQuestions } from './answers-rows.ts';

/** What the same sixteen questions cost on the service before concise answers (the measure). */
const BEFORE = { questions: 16, calls: 80, chars: 922_000 };
/** Most characters one question's answers may take. */
const MAX_CHARS = 6_000;

type Json = Record<string, unknown>;
type Row = Json;

const num = (v: unknown) => (v === null || v === undefined ? Number.NaN : Number(v));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const rows = (answer: Json) => answer.results as Row[];

// The questions' answers come from what a detailed call returns over every company, recomputed here.
const baseQuestions: Question[] = [
  {
    question:
      'The three active companies with the fastest ARR growth YoY, and their latest ARR (firm currency)',
    ask: async (call) => {
      await call('screen_companies', {
        status: 'active',
        columns: ['arr', 'arr_growth_yoy'],
        sort_by: '-arr_growth_yoy',
        per_page: 3,
      });
    },
    expect: async (detailed) => {
      const all = rows(
        await detailed('screen_companies', { status: 'active', columns: ['arr', 'arr_growth_yoy'] }),
      );
      const top = all
        .filter((r) => r.arr_growth_yoy !== null)
        .sort((a, b) => num(b.arr_growth_yoy) - num(a.arr_growth_yoy))
        .slice(0, 3);
      return {
        figures: top.flatMap((r) => [num(r.arr), num(r.arr_growth_yoy)]),
        names: top.map((r) => String(r.name)),
      };
    },
  },
  {
    question: "Total ARR per sector in the firm's currency",
    ask: async (call) => {
      await call('screen_companies', { group_by: 'sector', columns: ['arr'] });
    },
    expect: async (detailed) => {
      // Stale companies' old figures are left out of the totals.
      const all = rows(await detailed('screen_companies', { columns: ['arr'] }));
      const sums = new Map<string, number>();
      for (const r of all)
        if (r.arr !== null && r.stale !== true)
          sums.set(String(r.sector), (sums.get(String(r.sector)) ?? 0) + num(r.arr));
      return { figures: [...sums.values()], names: [...sums.keys()] };
    },
  },
  {
    question: 'Median runway of the active companies, and how many have under 12 months',
    ask: async (call) => {
      await call('screen_companies', { status: 'active', group_by: 'status', columns: ['runway_months'] });
      await call('screen_companies', {
        status: 'active',
        columns: ['runway_months'],
        filters: [{ figure: 'runway_months', op: 'lt', value: 12 }],
      });
    },
    expect: async (detailed) => {
      const runways = rows(
        await detailed('screen_companies', { status: 'active', columns: ['runway_months'] }),
      )
        .map((r) => r.runway_months)
        .filter((v) => v !== null)
        .map(num);
      return { figures: [median(runways), runways.filter((v) => v < 12).length], names: [] };
    },
  },
  {
    question: 'The company with the largest revenue miss against budget in its latest budgeted quarter',
    ask: async (call) => {
      await call('get_budget_variance', { category: 'revenue', period: 'quarter', per_page: 1 });
    },
    expect: async (detailed) => {
      const all = rows(await detailed('get_budget_variance', { category: 'revenue', period: 'quarter' }));
      const worst = all
        .filter((r) => r.variance_pct !== null)
        .sort((a, b) => num(a.variance_pct) - num(b.variance_pct))[0]!;
      return { figures: [num(worst.variance_pct), num(worst.variance)], names: [String(worst.company_name)] };
    },
  },
  {
    question: 'Every round of the company with the largest post-money valuation, with lead investors',
    ask: async (call) => {
      const top = await call('get_financing_events', { sort_by: '-post_money_valuation', per_page: 1 });
      const companyId = (rows(top)[0] ?? (top.same_in_every_result as Row)).company_id as string | undefined;
      const id = companyId ?? ((top.same_in_every_result as Row | undefined)?.company_id as string);
      await call('get_financing_events', { company_ids: [id] });
    },
    expect: async (detailed) => {
      const all = rows(await detailed('get_financing_events', {}));
      const post = (r: Row) => num((r.post_money_valuation as Row | null)?.converted_value);
      const top = [...all].sort((a, b) => (post(b) || 0) - (post(a) || 0))[0]!;
      const rounds = all.filter((r) => r.company_id === top.company_id);
      return {
        figures: [post(top)],
        names: [
          String(top.company_name),
          ...rounds.map((r) => String(r.name)),
          ...rounds.flatMap((r) => (r.lead_investor ? [String(r.lead_investor)] : [])),
        ],
      };
    },
  },
  {
    question: 'Ownership and MOIC in the three largest holdings by fair value',
    ask: async (call) => {
      await call('get_investment_metrics', { sort_by: '-fair_value', limit: 3 });
    },
    expect: async (detailed) => {
      const all = (await detailed('get_investment_metrics', {})).metrics as Row[];
      const top = [...all].sort((a, b) => num(b.fair_value) - num(a.fair_value)).slice(0, 3);
      return {
        figures: top.flatMap((r) => [num(r.ownership), num(r.moic), num(r.fair_value)]),
        names: top.map((r) => String(r.company_name)),
      };
    },
  },
  {
    question: 'Which active companies were late with the latest information report',
    ask: async (call) => {
      await call('get_portfolio_overview', {});
    },
    expect: async (detailed) => {
      const overview = await detailed('get_portfolio_overview', {});
      const latest = (overview.latest_information_request as Row).id as string;
      const reports = rows(await detailed('list_information_reports', { information_request_id: latest }));
      const active = new Set(
        rows(await detailed('list_companies', { status: 'active' })).map((c) => String(c.id)),
      );
      const late = reports.filter((r) => r.is_late === true && active.has(String(r.company_id)));
      return { figures: [], names: late.map((r) => String(r.company_name)) };
    },
  },
  {
    question: "A fund's TVPI and DPI",
    ask: async (call) => {
      await call('get_fund_performance', { per_page: 3 });
    },
    expect: async (detailed) => {
      const funds = (await detailed('get_fund_performance', {})).funds as Row[];
      return {
        figures: funds.flatMap((f) => [num(f.tvpi), num(f.dpi)]),
        names: funds.map((f) => String(f.fund_name)),
      };
    },
  },
  {
    question: "One company's ARR month by month over the last two years",
    ask: async (call) => {
      const found = await call('search_companies', { name_contains: 'Atlas' });
      const id = String(rows(found)[0]!.id);
      await call('get_company_metrics', { company_ids: [id], category: 'arr', from_date: '2024-11-01' });
    },
    expect: async (detailed) => {
      const id = String(rows(await detailed('search_companies', { name_contains: 'Atlas' }))[0]!.id);
      const data = rows(
        await detailed('get_company_metrics', {
          company_ids: [id],
          category: 'arr',
          from_date: '2024-11-01',
        }),
      );
      return { figures: data.flatMap((d) => [num(d.value), num(d.converted_value)]), names: [] };
    },
  },
  {
    question: 'The latest notes on one company',
    ask: async (call) => {
      const found = await call('search_companies', { name_contains: 'Atlas' });
      await call('list_notes', {
        company_id: String(rows(found)[0]!.id),
        sort_by: '-created_at',
        per_page: 5,
      });
    },
    expect: async (detailed) => {
      const id = String(rows(await detailed('search_companies', { name_contains: 'Atlas' }))[0]!.id);
      const notes = rows(
        await detailed('list_notes', { company_id: id, sort_by: '-created_at', per_page: 5 }),
      );
      return { figures: [], names: notes.map((n) => String(n.note).slice(0, 40)) };
    },
  },
  {
    question: 'The documents one company has sent',
    ask: async (call) => {
      const found = await call('search_companies', { name_contains: 'Atlas' });
      await call('list_documents', { company_id: String(rows(found)[0]!.id) });
    },
    expect: async (detailed) => {
      const id = String(rows(await detailed('search_companies', { name_contains: 'Atlas' }))[0]!.id);
      const documents = rows(await detailed('list_documents', { company_id: id }));
      return { figures: [], names: documents.flatMap((d) => [String(d.id), String(d.name)]) };
    },
  },
  {
    question: 'Cash and runway of the five active companies with the shortest runway',
    ask: async (call) => {
      await call('screen_companies', {
        status: 'active',
        columns: ['cash_in_bank', 'runway_months'],
        sort_by: 'runway_months',
        per_page: 5,
      });
    },
    expect: async (detailed) => {
      const all = rows(
        await detailed('screen_companies', { status: 'active', columns: ['cash_in_bank', 'runway_months'] }),
      );
      const top = all
        .filter((r) => r.runway_months !== null)
        .sort((a, b) => num(a.runway_months) - num(b.runway_months))
        .slice(0, 5);
      return {
        figures: top.flatMap((r) => [num(r.cash_in_bank), num(r.runway_months)]),
        names: top.map((r) => String(r.name)),
      };
    },
  },
];

/** Every number in an answer's text, as written in a string or as a JSON number. */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}

/** A figure is in the answer when some number there equals it to a cent, or to 0.01 of a percent or ratio. */
function hasFigure(numbers: number[], figure: number): boolean {
  const tolerance = Math.max(0.01, Math.abs(figure) * 1e-9);
  return numbers.some((n) => Math.abs(n - figure) <= tolerance);
}

async function main(): Promise<void> {
  const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'pds-answers-')), 'demo.db')}`;
  const db = openDb(url);
  await migrateLatest(db);
  await seedDemo(db);
  const ids = await demoIds(db);
  const questions = [
    ...baseQuestions,
    ...rowQuestions(db, ids.firmId, new Date().toISOString().slice(0, 10)),
  ];
  const server = await startServer(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      DOCUMENT_PARSING: 'off',
    }),
    { db },
  );
  let client: Client | undefined;
  const table = ['| # | Question | Calls | Characters | Right |', '|---:|---|---:|---:|---|'];
  const failures: string[] = [];
  let calls = 0;
  let chars = 0;
  try {
    client = await mcpClient(server.url, ids.token);
    const mcp = client;
    const detailed = async (name: string, args: Json) => {
      const res = await mcp.callTool({ name, arguments: { ...args, response_format: 'detailed' } });
      if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
      return res.structuredContent as Json;
    };
    for (const [i, q] of questions.entries()) {
      const texts: string[] = [];
      let qCalls = 0;
      let qChars = 0;
      await q.ask(async (name, args) => {
        const res = await mcp.callTool({ name, arguments: args });
        if (res.isError) throw new Error(`${q.question}: ${name} failed: ${JSON.stringify(res.content)}`);
        qCalls += 1;
        qChars += resultChars(res);
        texts.push(...(res.content as { text?: string }[]).map((c) => c.text ?? ''));
        return res.structuredContent as Json;
      });
      const answer = texts.join('\n');
      const numbers = numbersIn(answer);
      const wanted = await q.expect(detailed);
      const missing = [
        ...wanted.figures.filter((f) => !hasFigure(numbers, f)).map(String),
        ...wanted.names.filter((n) => !answer.includes(JSON.stringify(n).slice(1, -1))),
      ];
      if (missing.length > 0) failures.push(`${q.question}: the answer lacks ${missing.join(', ')}`);
      const right = missing.length === 0 ? 'yes' : `no: lacks ${missing.join(', ')}`;
      if (qChars > MAX_CHARS) failures.push(`${q.question}: ${qChars} characters, over ${MAX_CHARS}`);
      calls += qCalls;
      chars += qChars;
      console.log(
        `${String(i + 1).padStart(2)}. ${q.question}: ${qCalls} call(s), ${qChars} characters, ${right}`,
      );
      table.push(`| ${i + 1} | ${q.question} | ${qCalls} | ${qChars.toLocaleString('en-US')} | ${right} |`);
    }
  } finally {
    await client?.close();
    await server.close();
    await db.destroy();
  }
  const n = questions.length;
  table.push(`| | **Total** | **${calls}** | **${chars.toLocaleString('en-US')}** | |`);
  const summary =
    `${n} questions: ${calls} calls, ${chars.toLocaleString('en-US')} characters ` +
    `(${(chars / n).toFixed(0)} a question); before concise answers, ${BEFORE.questions} questions took ` +
    `${BEFORE.calls} calls and ${BEFORE.chars.toLocaleString('en-US')} characters ` +
    `(${(BEFORE.chars / BEFORE.questions).toFixed(0)} a question).`;
  console.log(summary);
  // The table is written either way, with what each wrong answer lacks; the run fails when one is wrong.
  if (failures.length > 0) {
    console.error(failures.join('\n'));
    process.exitCode = 1;
  }
  const block =
    `<!-- answers:start -->\n## An analyst's questions over MCP\n\nGenerated by \`npm run bench:answers\` on ${new Date().toISOString().slice(0, 10)}: ` +
    'the demo data (`db/seeds/demo.ts`) behind the real server, an MCP SDK client with a token of the demo user, ' +
    `concise answers (the default); characters are those of the results' text. Every answer was checked to hold the figures ` +
    `that answer its question, recomputed from detailed results or, from question ${baseQuestions.length + 1} on, from the database rows. ${summary}\n\n${table.join('\n')}\n<!-- answers:end -->\n`;
  const results = 'bench/RESULTS.md';
  const current = readFileSync(results, 'utf8');
  const marked = /<!-- answers:start -->[\s\S]*<!-- answers:end -->\n/;
  writeFileSync(results, marked.test(current) ? current.replace(marked, block) : `${current}\n${block}`);
}

await main();
