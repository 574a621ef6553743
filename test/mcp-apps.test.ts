import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import * as esbuild from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { DEMO, seedDemo } from '../db/seeds/demo.ts';
import { DEMO_TODAY } from '../db/seeds/values.ts';
import type { RunningServer } from '../server/http.ts';
import { VIEW_MIME_TYPE, VIEWS } from '../tools/views.ts';
import { hasChromium, launchChromium } from './helpers/browser.ts';
import { dialects, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer, TestClock } from './helpers/server.ts';
import { ensureViewsBuilt } from './helpers/views.ts';

const VIEW_TOOLS = {
  get_company_performance: VIEWS.company.uri,
  screen_companies: VIEWS.screen.uri,
  get_fund_performance: VIEWS.fund.uri,
};

type Structured = Record<string, unknown>;

/** The forms a host may hand a view its tool's result in: concise unless the model asked for detailed. */
const FORMATS = ['concise', 'detailed'] as const;
type Format = (typeof FORMATS)[number];

for (const { name, open } of dialects) {
  describe(`MCP Apps views as MCP resources (${name}) @db`, () => {
    let t: TestDb;
    let server: RunningServer;
    let client: Client;

    before(async () => {
      await ensureViewsBuilt();
      t = await open();
      const fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    it('declares the resources capability and lists the three views as MCP Apps HTML', async () => {
      expect(client.getServerCapabilities()?.resources).to.deep.equal({ listChanged: false });
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri).sort()).to.deep.equal(Object.values(VIEW_TOOLS).sort());
      expect(resources.every((r) => r.mimeType === VIEW_MIME_TYPE)).to.equal(true);
    });

    it('reads each view as one self-contained page that allows no outside domain', async () => {
      for (const uri of Object.values(VIEW_TOOLS)) {
        const { contents } = await client.readResource({ uri });
        expect(contents).to.have.length(1);
        const [page] = contents as { uri: string; mimeType: string; text: string; _meta: Structured }[];
        expect(page!.uri).to.equal(uri);
        expect(page!.mimeType).to.equal('text/html;profile=mcp-app');
        expect(page!.text).to.match(/^<!doctype html>/);
        // Inline script and style only: no element loads anything (the browser test sees no request).
        expect(page!.text).to.not.match(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/);
        expect(page!._meta).to.deep.equal({
          ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false },
        });
      }
    });

    it('refuses a resource it does not have', async () => {
      const err = await client.readResource({ uri: 'ui://portfolio/nothing.html' }).catch((e: Error) => e);
      expect(err).to.be.instanceOf(Error);
      expect((err as Error).message).to.include('unknown resource ui://portfolio/nothing.html');
    });

    it('links each view from its tool in tools/list, for MCP Apps hosts and ChatGPT', async () => {
      const { tools } = await client.listTools();
      for (const [tool, uri] of Object.entries(VIEW_TOOLS)) {
        const listed = tools.find((x) => x.name === tool)!;
        expect(listed._meta, tool).to.deep.equal({ ui: { resourceUri: uri }, 'openai/outputTemplate': uri });
      }
      const linked = tools.filter((x) => x._meta).map((x) => x.name);
      expect(linked.sort()).to.deep.equal(Object.keys(VIEW_TOOLS).sort());
    });
  });
}

const shots = fileURLToPath(new URL('../test-output/mcp-apps/', import.meta.url));
const docsImages = fileURLToPath(new URL('../docs/images/', import.meta.url));

/** The host page: the ext-apps AppBridge host of test/helpers/apps-host.ts, bundled for the browser. */
async function hostPage(): Promise<string> {
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./helpers/apps-host.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const js = built.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><script>${js}</script></body></html>`;
}

(hasChromium ? describe : describe.skip)(
  hasChromium
    ? 'MCP Apps views in a browser, embedded through the ext-apps AppBridge'
    : 'MCP Apps views in a browser (skipped: no chromium at /usr/bin/chromium; apt-get install chromium)',
  function () {
    this.timeout(120000);
    let t: TestDb;
    let server: RunningServer;
    let client: Client;
    let browser: Browser;
    let host: string;
    const requests: string[] = [];
    const problems: string[] = [];

    before(async () => {
      await ensureViewsBuilt();
      mkdirSync(shots, { recursive: true });
      t = await sqliteTestDb();
      await seedDemo(t.db);
      server = await startTestServer(t.db, { clock: new TestClock(new Date(`${DEMO_TODAY}T12:00:00Z`)) });
      const user = (await server.repos.users.getByEmail(DEMO.email))!;
      client = await mcpClient(server.url, await issueToken(server.repos, user));
      browser = await launchChromium();
      host = await hostPage();
    });
    after(async () => {
      await browser?.close();
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    /** The server's detailed answer: what the views are compared with. */
    async function call(name: string, args: Structured): Promise<Structured> {
      return (await client.callTool({
        name,
        arguments: { ...args, response_format: 'detailed' },
      })) as Structured;
    }

    /**
     * Opens the host page, embeds the view of `tool` with a real result of the running server: the model's
     * call with `args`, in the form `handed` (concise is what a model gets unless it asks otherwise).
     * `result` is the server's detailed answer to the same call; `recalls` is how many calls the view made
     * first to get it (one, asking the model's call again, when handed a concise result).
     */
    async function embed(tool: keyof typeof VIEW_TOOLS, args: Structured, handed: Format) {
      const input = handed === 'detailed' ? { ...args, response_format: 'detailed' } : args;
      const page = await browser.newPage({ viewport: { width: 920, height: 1600 } });
      page.on('request', (r) => requests.push(r.url()));
      page.on('console', (m) => {
        if (process.env.DEBUG_VIEWS) console.log('view:', m.type(), m.text());
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.exposeFunction('hostCallTool', (c: { name: string; arguments?: Structured }) =>
        client.callTool({ name: c.name, arguments: c.arguments ?? {} }),
      );
      await page.setContent(host);
      const { contents } = await client.readResource({ uri: VIEW_TOOLS[tool] });
      const resource = contents[0] as unknown as { text: string; _meta: { ui: { csp: Structured } } };
      const toolResult = (await client.callTool({ name: tool, arguments: input })) as Structured;
      const result = (handed === 'detailed' ? toolResult : await call(tool, args))
        .structuredContent as Structured;
      await page.evaluate(
        (o) => (window as unknown as { embedView(x: unknown): Promise<void> }).embedView(o),
        { html: resource.text, csp: resource._meta.ui.csp, toolInput: input, toolResult, theme: 'light' },
      );
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      const recalls = handed === 'concise' ? 1 : 0;
      if (recalls) {
        await page.waitForFunction(() => (window as unknown as { calls: unknown[] }).calls.length > 0);
        const [first] = await calls(page);
        expect(first!.name).to.equal(tool);
        expect(first!.arguments).to.deep.include({ ...args, response_format: 'detailed' });
      }
      return { page, frame, result, recalls };
    }

    /** The tools/call requests the view made through the host: every one asks for the detailed form. */
    async function calls(page: Page) {
      const log = await page.evaluate(
        () => (window as unknown as { calls: { name: string; arguments: Structured }[] }).calls,
      );
      for (const c of log) expect(c.arguments, c.name).to.deep.include({ response_format: 'detailed' });
      return log;
    }
    const count = (frame: Frame, selector: string) => frame.locator(selector).count();

    async function shoot(page: Page, name: string, handed: Format): Promise<void> {
      // Pictures of the default, concise hand-off; the detailed one draws the same.
      if (handed !== 'concise') return;
      // Let the debounced size notification land before the picture.
      await page.waitForTimeout(400);
      const png = await page.locator('iframe').screenshot();
      writeFileSync(`${shots}${name}.png`, png);
      if (process.env.UPDATE_SCREENSHOTS === '1' && !name.endsWith('-dark')) {
        mkdirSync(docsImages, { recursive: true });
        writeFileSync(`${docsImages}${name}.png`, png);
      }
    }

    afterEach(() => {
      // Every view ran under a CSP that allows no origin: no request left the page, nothing was refused.
      expect(requests.filter((u) => !/^(data:|about:)/.test(u))).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
    });

    for (const handed of FORMATS) {
      it(`company dashboard: KPI cards, trend lines with the budget, runway, and a quarter switch that calls the tool again, handed a ${handed} result`, async () => {
        const screen = (await call('screen_companies', { per_page: 1 })).structuredContent as {
          results: { company_id: string }[];
        };
        const companyId = screen.results[0]!.company_id;
        const { page, frame, result } = await embed(
          'get_company_performance',
          { company_id: companyId, months: 24 },
          handed,
        );
        const series = result.series as Record<string, { points: { month: string; value: string | null }[] }>;
        await frame.waitForSelector('[data-chart=revenue] circle.pt[data-series=Budget]');
        const known = (c: string) => series[c]!.points.filter((p) => p.value !== null).length;
        for (const [chart, title] of [
          ['revenue', 'Revenue'],
          ['arr', 'ARR'],
          ['cash_in_bank', 'Cash'],
          ['net_burn', 'Net burn'],
        ] as const) {
          expect(
            await count(frame, `[data-chart=${chart}] circle.pt[data-series="${title}"]`),
            chart,
          ).to.equal(known(chart));
        }
        // The budget overlay: one point per budgeted month inside the window.
        const budget = (
          await call('get_budget_variance', { company_id: companyId, category: 'revenue', per_page: 100 })
        ).structuredContent as { results: { period: string }[] };
        const months = new Set(series.revenue!.points.map((p) => p.month));
        const budgeted = budget.results.filter((r) => months.has(r.period)).length;
        expect(budgeted).to.be.greaterThan(0);
        expect(await count(frame, '[data-chart=revenue] circle.pt[data-series=Budget]')).to.equal(budgeted);
        expect(await count(frame, '[data-kpi]')).to.equal(7);
        const summary = (await call('get_company_financial_summary', { company_id: companyId }))
          .structuredContent as {
          runway_months: { value: string };
        };
        await frame.waitForFunction(
          () => !document.querySelector('[data-kpi=runway] .v')?.textContent?.includes('…'),
        );
        expect(await frame.locator('[data-kpi=runway] .v').textContent()).to.equal(
          `${Number(summary.runway_months.value).toFixed(1)} mo`,
        );
        // Debounced: one notification once the drawing settled, not one per redraw; the host sizes the frame to it.
        await page.waitForFunction(() => (window as unknown as { sizes: unknown[] }).sizes.length > 0);
        await page.waitForTimeout(500);
        const sizes = await page.evaluate(() => (window as unknown as { sizes: { height: number }[] }).sizes);
        expect(sizes.length).to.be.within(1, 2);
        const height = await frame.evaluate(() => document.documentElement.scrollHeight);
        expect(sizes.at(-1)!.height).to.equal(height);
        expect(await page.locator('iframe').evaluate((f) => (f as HTMLElement).offsetHeight)).to.equal(
          height,
        );
        await shoot(page, 'company-dashboard', handed);

        await frame.click('button[data-period=quarter]');
        await frame.waitForSelector('.dashboard[data-period=quarter]');
        const quarter = (await calls(page)).filter((c) => c.name === 'get_company_performance');
        expect(quarter.at(-1)!.arguments).to.deep.include({ company_id: companyId, period: 'quarter' });
        const byQuarter = (
          await call('get_company_performance', { company_id: companyId, months: 24, period: 'quarter' })
        ).structuredContent as {
          series: { revenue: { periods: { value: string | null; complete: boolean }[] } };
        };
        expect(await count(frame, '[data-chart=revenue] circle.pt[data-series=Revenue]')).to.equal(
          // Incomplete quarters are gaps.
          byQuarter.series.revenue.periods.filter((p) => p.value !== null && p.complete).length,
        );

        // The host switches to dark: the view follows.
        const light = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
        await page.evaluate(() =>
          (window as unknown as { setTheme(t: string): Promise<void> }).setTheme('dark'),
        );
        await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
        expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).to.not.equal(
          light,
        );
        await shoot(page, 'company-dashboard-dark', handed);
        await page.close();
      });

      it(`portfolio screen: rows, sparklines, a growth against burn multiple scatter, sorting, and a click that opens the dashboard, handed a ${handed} result`, async () => {
        const { page, frame, result } = await embed('screen_companies', {}, handed);
        const total = result.count as number;
        // The default columns lack burn_multiple: the view asks the tool for it, with the same arguments.
        await frame.waitForSelector('[data-chart=scatter] circle.dot');
        const again = (await calls(page)).find((c) => c.name === 'screen_companies')!;
        expect(again.arguments.columns).to.include('burn_multiple');
        const full = (await call('screen_companies', { columns: again.arguments.columns as string[] }))
          .structuredContent as { results: Structured[] };
        const plotted = full.results.filter((r) => r.arr_growth_yoy !== null && r.burn_multiple !== null);
        expect(await count(frame, '[data-chart=scatter] circle.dot')).to.equal(plotted.length);
        const rows = Math.min(15, total);
        expect(await count(frame, '#screen tbody tr')).to.equal(rows);
        // One call got the detailed rows and the scatter's figures together.
        expect((await calls(page)).filter((c) => c.name === 'screen_companies')).to.have.length(1);
        // Each row shows its own status and sector, though a concise result states a value all rows share once.
        const cells = await frame.locator('#screen tbody tr').first().locator('td').allTextContents();
        expect(cells.slice(2, 4)).to.deep.equal([full.results[0]!.status, full.results[0]!.sector]);
        // One sparkline per row on the page, each series asked of get_company_performance through the host.
        await frame.waitForFunction(
          (n) =>
            document.querySelectorAll('.spark-cell svg.spark').length === n &&
            [...document.querySelectorAll('.spark-cell svg.spark')].every(
              (s) => s.getAttribute('data-points') !== null,
            ),
          rows,
        );
        await page.waitForFunction(
          (n) =>
            (window as unknown as { calls: { name: string }[] }).calls.filter(
              (c) => c.name === 'get_company_performance',
            ).length === n,
          rows,
        );
        const first = full.results[0]!;
        const perf = (await call('get_company_performance', { company_id: first.company_id, months: 12 }))
          .structuredContent as { series: { arr: { points: { value: string | null }[] } } };
        await frame.waitForFunction(
          ([id, n]) =>
            document.querySelector(`tr[data-id="${id}"] svg.spark`)?.getAttribute('data-points') ===
            String(n),
          [first.company_id, perf.series.arr.points.filter((p) => p.value !== null).length] as const,
        );
        await shoot(page, 'portfolio-screen', handed);

        // Sorting by ARR, largest first, puts the server's top ARR company first.
        await frame.click('th[data-column=arr]');
        const top = (await call('screen_companies', { sort_by: '-arr', per_page: 1 })).structuredContent as {
          results: { company_id: string }[];
        };
        expect(await frame.locator('#screen tbody tr').first().getAttribute('data-id')).to.equal(
          top.results[0]!.company_id,
        );

        // A bubble opens that company's dashboard, fetched through the host.
        const picked = plotted[0]!.company_id as string;
        await frame.locator(`circle.dot[data-id="${picked}"]`).dispatchEvent('click');
        await frame.waitForSelector(`#detail .dashboard[data-company="${picked}"]`);
        await frame.waitForFunction(
          () => !document.querySelector('#detail [data-kpi=runway] .v')?.textContent?.includes('…'),
        );
        expect(
          (await calls(page)).some(
            (c) => c.name === 'get_company_financial_summary' && c.arguments.company_id === picked,
          ),
        ).to.equal(true);
        expect(
          (await calls(page)).some(
            (c) =>
              c.name === 'get_company_performance' &&
              c.arguments.company_id === picked &&
              c.arguments.months === 12,
          ),
        ).to.equal(true);
        expect(await count(frame, '#detail [data-kpi]')).to.equal(7);
        await frame.click('#back');
        expect(await frame.locator('#screen').isVisible()).to.equal(true);
        await page.close();
      });

      it(`fund performance: ratios over time, NAV by company and the J-curve, from calls with as_of_date and include_cash_flows, handed a ${handed} result`, async () => {
        const { page, frame, result, recalls } = await embed('get_fund_performance', {}, handed);
        const funds = result.funds as {
          fund_id: string;
          as_of_date: string;
          tvpi: string;
          companies: { count: number; results: { fair_value: string }[] };
        }[];
        const fund = funds[0]!;
        await frame.waitForSelector('[data-chart=jcurve] rect.bar');
        await frame.waitForSelector('[data-chart=ratios] circle.pt');
        const log = (await calls(page)).slice(recalls);
        expect(log[0]).to.deep.include({ name: 'get_fund_performance' });
        expect(log[0]!.arguments).to.deep.include({ fund_id: fund.fund_id, include_cash_flows: true });
        const flows = (
          await call('get_fund_performance', { fund_id: fund.fund_id, include_cash_flows: true, per_page: 1 })
        ).structuredContent as { funds: { cash_flows: { date: string; kind: string }[] }[] };
        const first = flows.funds[0]!.cash_flows.filter((f) => f.kind !== 'fair_value')
          .map((f) => f.date)
          .sort()[0]!;
        const years = Number(fund.as_of_date.slice(0, 4)) - Number(first.slice(0, 4));
        expect(years).to.be.greaterThan(3);
        // Yearly: one J-curve bar per year from the first flow to the as-of date, one ratio date per year end and the as-of date.
        expect(await count(frame, '[data-chart=jcurve] rect.bar')).to.equal(years + 1);
        expect(await count(frame, '[data-chart=ratios] circle.pt[data-series=TVPI]')).to.equal(
          Math.min(years, 12) + 1,
        );
        const asOfCalls = log.filter(
          (c) => typeof c.arguments.as_of_date === 'string' && !c.arguments.include_cash_flows,
        );
        expect(asOfCalls).to.have.length(Math.min(years, 12));
        // A ratio drawn at a year end is the tool's own answer at that date.
        const yearEnd = `${Number(first.slice(0, 4)) + 2}-12-31`;
        const then = (
          await call('get_fund_performance', { fund_id: fund.fund_id, as_of_date: yearEnd, per_page: 1 })
        ).structuredContent as { funds: { tvpi: string }[] };
        const titles = await frame
          .locator('[data-chart=ratios] circle.pt[data-series=TVPI] title')
          .allTextContents();
        expect(titles).to.include(`TVPI ${yearEnd}: ${Number(then.funds[0]!.tvpi)}×`);
        expect(titles.at(-1)).to.equal(`TVPI ${fund.as_of_date}: ${Number(fund.tvpi)}×`);
        const held = fund.companies.results.filter((c) => Number(c.fair_value) > 0).length;
        expect(await count(frame, '[data-chart=nav] rect.bar')).to.equal(Math.min(15, held));
        expect(await count(frame, '[data-kpi]')).to.equal(6);
        await shoot(page, 'fund-performance', handed);

        // Another fund: its own flows and dates are asked for and drawn.
        await frame.locator('.seg button').nth(1).click();
        await frame.waitForSelector(`.fund[data-fund="${funds[1]!.fund_id}"]`);
        await page.waitForFunction(
          (id) =>
            (window as unknown as { calls: { arguments: Structured }[] }).calls.some(
              (c) => c.arguments.fund_id === id && c.arguments.include_cash_flows === true,
            ),
          funds[1]!.fund_id,
        );
        await frame.waitForSelector('[data-chart=jcurve] rect.bar');
        expect(await count(frame, '[data-chart=jcurve] rect.bar')).to.be.greaterThan(0);
        await page.close();
      });
    }
  },
);
