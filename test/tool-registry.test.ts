import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { toolSnapshot } from '../scripts/artefacts.ts';
import { describeTool, mcpTools } from '../tools/mcp.ts';
import { registry } from '../tools/registry.ts';

interface Schema {
  type?: string;
  properties?: Record<string, { description?: string }>;
  anyOf?: unknown;
  oneOf?: unknown;
}

describe('the tool registry', () => {
  it('has unique tool names in snake_case', () => {
    const names = registry.map((t) => t.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const name of names) expect(name).to.match(/^[a-z][a-z0-9_]*$/);
  });

  it('gives every tool a title, a description and all four annotations', () => {
    for (const tool of registry) {
      expect(tool.title, tool.name).to.be.a('string').and.not.empty;
      expect(tool.description.length, tool.name).to.be.greaterThan(40);
      expect(Object.keys(tool.annotations).sort(), tool.name).to.deep.equal([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
      ]);
      expect(tool.annotations.readOnlyHint, tool.name).to.equal(!tool.write);
      if (tool.write) expect(tool.annotations.destructiveHint, tool.name).to.equal(true);
    }
  });

  it('describes every input field and keeps input and output schemas plain objects', () => {
    for (const tool of registry) {
      const d = describeTool(tool);
      const input = d.inputSchema as Schema;
      const output = d.outputSchema as Schema;
      expect(input.type, tool.name).to.equal('object');
      expect(output.type, tool.name).to.equal('object');
      for (const s of [input, output]) {
        expect(s.anyOf, tool.name).to.equal(undefined);
        expect(s.oneOf, tool.name).to.equal(undefined);
      }
      for (const [field, p] of Object.entries(input.properties ?? {})) {
        expect(p.description, `${tool.name}.${field}`).to.be.a('string').and.not.empty;
      }
    }
  });

  it('lists the 24 tools of the spec, the portfolio, fund-returns and budget-variance tools over MCP, and the two writes only when MCP_WRITE_TOOLS is on', () => {
    const reads = mcpTools({ writeTools: false }).map((t) => t.name);
    expect(reads.sort()).to.deep.equal(
      [
        'get_company',
        'get_company_financial_summary',
        'get_company_metrics',
        'get_company_notes_summary',
        'get_company_performance',
        'get_company_recent_metrics',
        'get_custom_column_options',
        'get_custom_columns',
        'get_excel_plugin_guide',
        'get_budget_variance',
        'get_financing_events',
        'get_fund_performance',
        'get_investment_metrics',
        'get_metrics_options',
        'get_portfolio_overview',
        'get_securities',
        'get_share_classes',
        'get_transactions',
        'list_budgets',
        'list_companies',
        'list_documents',
        'list_funds',
        'list_information_reports',
        'list_information_requests',
        'list_notes',
        'list_users',
        'screen_companies',
        'search_companies',
        'whoami',
      ].sort(),
    );
    const writes = mcpTools({ writeTools: true })
      .map((t) => t.name)
      .filter((name) => !reads.includes(name));
    expect(writes.sort()).to.deep.equal(['add_financing_rounds', 'update_metric']);
  });

  it('matches the committed snapshot of the published tool list (run npm run generate to update it on purpose)', () => {
    const committed = readFileSync(new URL('./tools.snapshot.json', import.meta.url), 'utf8');
    expect(toolSnapshot()).to.equal(committed);
  });
});
