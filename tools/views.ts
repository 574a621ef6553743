// The MCP Apps views (io.modelcontextprotocol/ui): one self-contained HTML page per view, built from views/
// by `npm run build` (scripts/build-views.ts) into dist/views/ and read from there when a host asks for it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The MIME type hosts look for on an MCP Apps resource. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

export interface View {
  uri: string;
  /** Base name of the built file in dist/views/ and of the entry point in views/. */
  file: string;
  title: string;
  description: string;
}

export const VIEWS = {
  company: {
    uri: 'ui://portfolio/company.html',
    file: 'company',
    title: 'Company dashboard',
    description:
      'KPI cards, revenue, ARR, cash and net burn trends against budget, and runway of one company (get_company_performance).',
  },
  screen: {
    uri: 'ui://portfolio/screen.html',
    file: 'screen',
    title: 'Portfolio screen',
    description:
      'Sortable table with ARR sparklines and a growth against burn multiple scatter of the screened companies (screen_companies).',
  },
  fund: {
    uri: 'ui://portfolio/fund.html',
    file: 'fund',
    title: 'Fund performance',
    description:
      'TVPI, DPI and RVPI over time, NAV by company and the cash-flow J-curve (get_fund_performance).',
  },
} as const satisfies Record<string, View>;

const views: readonly View[] = Object.values(VIEWS);

/**
 * What the host is asked to allow: no outside origin at all (scripts and styles are inline; every call
 * goes through the host). Hosts read this from the resources/read content, resources/list as a fallback.
 */
const RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false } };

/** dist/views/ whether this module runs from the TypeScript sources or from the compiled dist/. */
export const VIEWS_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../dist/views/' : '../views/', import.meta.url),
);

export function listViews() {
  return views.map((v) => ({
    uri: v.uri,
    name: v.file,
    title: v.title,
    description: v.description,
    mimeType: VIEW_MIME_TYPE,
    _meta: RESOURCE_META,
  }));
}

const cache = new Map<string, string>();

/** The view's HTML; undefined for a URI that names no view. Throws when the views were not built. */
export async function readView(
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string; _meta: object } | undefined> {
  const view = views.find((v) => v.uri === uri);
  if (!view) return undefined;
  let text = cache.get(view.file);
  if (text === undefined) {
    try {
      text = await readFile(`${VIEWS_DIR}${view.file}.html`, 'utf8');
    } catch {
      throw new Error(`the ${view.file} view is not built; run npm run build`);
    }
    cache.set(view.file, text);
  }
  return { uri: view.uri, mimeType: VIEW_MIME_TYPE, text, _meta: RESOURCE_META };
}
