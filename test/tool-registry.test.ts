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

  it('lists write tools over MCP only when MCP_WRITE_TOOLS is on', () => {
    const reads = mcpTools({ writeTools: false });
    expect(reads.every((t) => !t.write)).to.equal(true);
    const all = mcpTools({ writeTools: true });
    expect(all.filter((t) => t.write).map((t) => t.name)).to.deep.equal(
      registry.filter((t) => t.write && t.mcp !== false).map((t) => t.name),
    );
  });

  it('matches the committed snapshot of the published tool list (run npm run generate to update it on purpose)', () => {
    const committed = readFileSync(new URL('./tools.snapshot.json', import.meta.url), 'utf8');
    expect(toolSnapshot()).to.equal(committed);
  });
});
