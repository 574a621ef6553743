import { definePrompt, steps } from './define.ts';

export const quarterlyPortfolioReview = definePrompt({
  name: 'quarterly_portfolio_review',
  title: 'Quarterly portfolio review',
  description:
    'Review the whole portfolio (or one fund) for a quarter: status, totals, fund returns, the companies ' +
    'that need attention and why.',
  arguments: [
    {
      name: 'quarter',
      description: 'The quarter to review, such as 2026-Q1; default: the latest complete one.',
    },
    { name: 'fund_id', description: 'Review only this fund (id from list_funds); default: every fund.' },
  ],
  text: ({ quarter, fund_id }) => {
    const scope = fund_id ? `fund ${fund_id}` : 'the whole portfolio';
    const fund = fund_id ? ` with fund_id=${fund_id}` : '';
    return (
      `Prepare the quarterly portfolio review of ${scope} for ${quarter ?? 'the latest complete quarter'}.\n\n` +
      'Call the tools in this order:\n' +
      steps([
        `get_portfolio_overview${fund}: companies by status and sector, total cash, ARR and TTM revenue in the ` +
          "firm's currency, and the companies that need attention with the reason for each.",
        `screen_companies${fund} with status=active and sort_by=runway_months: the shortest runways; then ` +
          'sort_by=-revenue_growth_yoy for the fastest growers. Treat a figure from a stale company as old news and say so.',
        `get_fund_performance${fund} with as_of_date at the quarter end: paid-in capital, NAV, TVPI, DPI and IRR.`,
        'For each company that needs attention (at most five): get_company_financial_summary and ' +
          'get_company_performance with months=12, to explain the trend behind the flag.',
        'list_information_requests, then list_information_reports for the latest request, to list who is ' +
          'late with their figures.',
      ]) +
      '\n\nWrite the review as: headline numbers (one table, money in the firm currency), fund returns, ' +
      'companies needing attention (one paragraph each, with the figures and their as-of months), late ' +
      'reporting, and open questions. Quote figures exactly as the tools return them and name their dates.'
    );
  },
});
