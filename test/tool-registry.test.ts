import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { describeTool, mcpTools } from '../mcp/server.ts';
import { toolSnapshot } from '../scripts/artefacts.ts';
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
      // Only a write that adds new records (create_…) may say it destroys nothing.
      if (tool.write && !tool.name.startsWith('create_'))
        expect(tool.annotations.destructiveHint, tool.name).to.equal(true);
    }
  });

  // page and per_page say everything through their bounds and defaults (tools/schemas/page.ts);
  // response_format, on every read, is explained once in the server's instructions.
  const selfDescribing = new Set(['page', 'per_page', 'response_format']);

  it('describes every input field but paging and keeps input and output schemas plain objects', () => {
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
        if (selfDescribing.has(field)) continue;
        expect(p.description, `${tool.name}.${field}`).to.be.a('string').and.not.empty;
      }
    }
  });

  it('lists the snapshot tools over MCP, and its writes only when MCP_WRITE_TOOLS is on', () => {
    // The committed snapshot is the reviewed published list; a new tool enters it through npm run generate.
    const published = JSON.parse(readFileSync(new URL('./tools.snapshot.json', import.meta.url), 'utf8')) as {
      name: string;
      annotations: { readOnlyHint: boolean };
    }[];
    const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();
    const publishedReads = names(published.filter((t) => t.annotations.readOnlyHint));
    const publishedWrites = names(published.filter((t) => !t.annotations.readOnlyHint));
    expect(publishedWrites).to.not.be.empty;
    const reads = names(mcpTools({ writeTools: false }));
    expect(reads).to.deep.equal(publishedReads);
    const withWrites = names(mcpTools({ writeTools: true }));
    expect(withWrites.filter((name) => !reads.includes(name))).to.deep.equal(publishedWrites);
  });

  it('matches the committed snapshot of the published tool list (run npm run generate to update it on purpose)', () => {
    const committed = readFileSync(new URL('./tools.snapshot.json', import.meta.url), 'utf8');
    expect(toolSnapshot()).to.equal(committed);
  });
});
