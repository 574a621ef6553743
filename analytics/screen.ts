// The screen's figures of every company (screen_companies and the alert rules), loading the budget and
// cap-table data only when a chosen figure needs them.
import { utcDate } from '../core/clock.ts';
import { mayEditCapTable } from '../core/principal.ts';
import { type BudgetRevenue, companyFigures, type Investment } from './company-figures.ts';
import type { ReadContext } from './context.ts';
import { investmentMetrics } from './investment-metrics.ts';
import type { loadPortfolio, PortfolioCompany } from './portfolio.ts';
import {
  BUDGET_FIGURES,
  type CompanyFigures,
  type FigureName,
  INVESTMENT_FIGURES,
} from './screen-figures.ts';

export type Loaded = Awaited<ReturnType<typeof loadPortfolio>>;

/**
 * Every company's figures, loading the budget and cap-table data only when a chosen figure needs them
 * (also what alert rules are evaluated on).
 */
export async function figuresOf(
  ctx: ReadContext,
  companies: PortfolioCompany[],
  needed: Set<FigureName>,
  fundId: string | undefined,
  portfolio: Loaded,
): Promise<CompanyFigures[]> {
  const ids = companies.map((c) => c.company.id);
  const asOfDate = utcDate(ctx.clock.now());
  const wants = (list: readonly FigureName[]) => list.some((f) => needed.has(f));
  let budgets: Map<string, BudgetRevenue> | undefined;
  if (wants(BUDGET_FIGURES) && ids.length > 0) {
    budgets = await ctx.repos.analytics.latestBudgetFigures(ctx.principal.scope, ids, 'revenue');
  }
  let investments: Map<string, Investment> | undefined;
  let withheld: string | null = null;
  if (wants(INVESTMENT_FIGURES)) {
    investments = new Map();
    if (ids.length > 0) {
      const metrics = await investmentMetrics(ctx, {
        companyIds: ids,
        fundIds: fundId ? [fundId] : undefined,
        asOf: asOfDate,
      });
      for (const m of metrics) investments.set(m.company_id, m);
    }
    if (!mayEditCapTable(ctx.principal.user)) {
      withheld = 'ownership, MOIC and fair value need the cap-table permission';
    }
  }
  // Without budget or cap-table data a company's figures depend only on what its cache entry is kept for.
  if (!budgets && !investments) {
    return companies.map(
      (c) =>
        (c.computed.figures ??= companyFigures(
          { portfolio: c, asOfDate, positionsWithheld: withheld },
          portfolio.preferred,
          portfolio.rates,
        )),
    );
  }
  return companies.map((c) =>
    companyFigures(
      {
        portfolio: c,
        budget: budgets ? (budgets.get(c.company.id) ?? null) : undefined,
        investment: investments ? (investments.get(c.company.id) ?? null) : undefined,
        positionsWithheld: withheld,
        asOfDate,
      },
      portfolio.preferred,
      portfolio.rates,
    ),
  );
}
