import { definePrompt, steps } from './define.ts';

export const companyTearSheet = definePrompt({
  name: 'company_tear_sheet',
  title: 'Company tear sheet',
  description:
    'A one-page tear sheet of one portfolio company: profile, key figures, trends, cap table and recent notes.',
  arguments: [
    { name: 'company', description: 'The company name or id.', required: true },
    { name: 'months', description: 'How many months of trend to show; default 12.' },
  ],
  text: ({ company, months }) =>
    `Write a one-page tear sheet of the portfolio company "${company ?? ''}".\n\n` +
    'Call the tools in this order:\n' +
    steps([
      'search_companies with name_contains set to the company name (skip it when you were given an id) to ' +
        'find its company_id; if several match, ask which one is meant.',
      'get_company: profile, sector, city, status, reporting currency and investment lead.',
      'get_company_financial_summary: cash, ARR, TTM revenue, net burn, runway, burn multiple and gross margin.',
      `get_company_performance with months=${months ?? '12'}: the monthly trend and growth rates.`,
      'get_financing_events and get_securities with company_ids=[company_id]: rounds, valuations and what ' +
        'our funds hold.',
      'get_company_notes_summary: what the team wrote recently.',
    ]) +
    '\n\nLay it out as: header (name, sector, city, status, lead), key figures table (value, unit, as-of ' +
    'month), trend in two sentences, cap table summary, recent notes in three bullets, and risks. Every ' +
    'figure with its date; say "not reported" rather than guessing.',
});
