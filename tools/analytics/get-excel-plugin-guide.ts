import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';

/** Every path the guide names; a test holds each to the route table. */
export const GUIDE_PATHS = [
  '/o/token/',
  '/v1/companies/',
  '/v1/metrics/',
  '/v1/metrics/options/',
  '/openapi.json',
  '/docs',
] as const;

/** The guide in its sections, each a function of the base URL. */
const intro = (base: string) => `# Pulling portfolio data into a spreadsheet

You are helping a user bring this service's portfolio data into Excel (or another spreadsheet that can
run Power Query or web requests). Base URL: ${base}

`;

const explore = (_base: string) => `## 1. Explore with the MCP tools first
- list_companies / search_companies: find company ids (search by name_contains, sector, city).
- get_metrics_options: the metric categories (revenue, arr, cash_in_bank, ...) and custom metrics.
- get_company_metrics: the raw data points of companies in a date range, filtered by category and cadence.
- get_company_recent_metrics: the latest data points of one company.
- get_company_performance and get_company_financial_summary: computed trends, TTM totals, runway,
  burn multiple - use them to answer questions, but pull raw data points into sheets so formulas can
  recompute.
Then write a refreshable Power Query that calls the REST API below, so the workbook updates without you.

`;

const token = (base: string) => `## 2. Get an access token (OAuth 2.0 client credentials)
The user creates an OAuth application in the firm's developer settings and gets a client id and secret.
Never write the secret into a cell; keep it in a Power Query parameter or ask the user to paste it.

    POST ${base}/o/token/
    Authorization: Basic base64(<CLIENT_ID>:<CLIENT_SECRET>)
    Content-Type: application/x-www-form-urlencoded
    grant_type=client_credentials

The answer has access_token (valid 3600 seconds), token_type Bearer. Send it on every data request as
"Authorization: Bearer <access_token>"; Basic credentials are refused on data paths.

Power Query (a query named Token; BaseUrl, ClientId and ClientSecret are parameters):

    let
        Response = Json.Document(Web.Contents(BaseUrl, [
            RelativePath = "o/token/",
            Headers = [
                Authorization = "Basic " & Binary.ToText(Text.ToBinary(ClientId & ":" & ClientSecret), BinaryEncoding.Base64),
                #"Content-Type" = "application/x-www-form-urlencoded"
            ],
            Content = Text.ToBinary("grant_type=client_credentials")
        ])),
        Token = Response[access_token]
    in
        Token

`;

const companies = (base: string) => `## 3. Companies
GET ${base}/v1/companies/?page_size=100 returns {count, next, previous, results}; optional name filter
(case-insensitive substring) and ids[] (repeatable).

    let
        Source = Json.Document(Web.Contents(BaseUrl, [
            RelativePath = "v1/companies/",
            Query = [page_size = "100"],
            Headers = [Authorization = "Bearer " & Token]
        ])),
        Companies = Table.FromRecords(Source[results], null, MissingField.UseNull)
    in
        Companies

`;

const metrics = (base: string) => `## 4. Metrics, every page (follow next)
GET ${base}/v1/metrics/?company_id=<id>&page_size=100 (company_slug works too). Optional filters: from and
to (YYYY-MM-DD, inclusive), category (repeatable), cadence (point_in_time, month, quarter, year),
include_budgets=1, include_archived=0. A page holds at most 100 results; next is the absolute URL of the
following page (null on the last), so follow it until it is null:

    let
        CompanyId = "<company id>",
        GetPage = (url as text) => Json.Document(Web.Contents(url, [Headers = [Authorization = "Bearer " & Token]])),
        Pages = List.Generate(
            () => GetPage(BaseUrl & "/v1/metrics/?company_id=" & CompanyId & "&page_size=100"),
            each _ <> null,
            each if _[next] = null then null else GetPage(_[next])
        ),
        Rows = List.Combine(List.Transform(Pages, each _[results])),
        Metrics = Table.FromRecords(Rows, null, MissingField.UseNull),
        Typed = Table.TransformColumns(Metrics, {
            {"value", each try Number.From(_, "en-US") otherwise _},
            {"converted_value", each try Number.From(_, "en-US") otherwise null},
            {"date", Date.FromText}
        })
    in
        Typed

Excel refreshes this as is. The Power BI service refuses URLs built at refresh time: there, call
Web.Contents(BaseUrl, [RelativePath = "v1/metrics/", Query = [company_id = CompanyId, page_size = "100",
page = Text.From(n)]]) for n = 1, 2, ... up to Number.RoundUp(count / 100) instead of following next.
GET ${base}/v1/metrics/options/ lists the categories for the category filter.

`;

const csv = (base: string) => `## 5. CSV instead of JSON
Every list path answers CSV when asked with format=csv in the query or an "Accept: text/csv" header, for
example ${base}/v1/metrics/?company_id=<id>&page_size=100&format=csv. A CSV answer is one page with a
header row and no next link: request page=1, 2, ... until a page has fewer than page_size rows. In Power
Query read it with Csv.Document(Web.Contents(...), [Delimiter = ",", Encoding = 65001]) and promote headers.

`;

const reading = (base: string) => `## 6. Reading the data correctly
- value and converted_value are decimal strings: convert with the en-US culture (decimal point), never
  by locale guessing. converted_value is in the firm's preferred currency (preferred_currency); it is
  empty when no FX rate is known.
- Percentage categories (gross_margin, ownership, ...) are fractions: 0.25 means 25 %.
- Flows (revenue, net_burn, ebitda) have a cadence of month, quarter or year; never add monthly and
  quarterly rows together - filter on cadence first. Stocks (cash_in_bank, arr, headcount) are point_in_time.
- Deleted data points are left out; budget data points only come with include_budgets=1.
- Limits: 500 requests per minute per token (a 429 answer says how many seconds to wait in Retry-After);
  tokens expire after an hour, so fetch a new one in the same refresh.
- Every path and parameter is documented at ${base}/docs (machine-readable: ${base}/openapi.json).
`;

const SECTIONS = [intro, explore, token, companies, metrics, csv, reading];

function guide(base: string): string {
  return SECTIONS.map((section) => section(base)).join('');
}

export const getExcelPluginGuide = defineTool({
  name: 'get_excel_plugin_guide',
  title: 'Guide: portfolio data in a spreadsheet',
  description:
    'Instructions for a model in a spreadsheet plugin: access token, Power Query calls to the REST API that follow pagination, CSV export, reading values. Call it before building a workbook over this data.',
  input: z.object({}),
  output: z.object({
    guide: z.string().describe('The guide, in Markdown.'),
    paths: z.array(z.string()).describe('Every path of this service the guide mentions.'),
  }),
  annotations: readOnly,
  async handler(ctx) {
    return { guide: guide(ctx.publicUrl), paths: [...GUIDE_PATHS] };
  },
});
