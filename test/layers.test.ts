import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The layers a layer must never import from: server/cli → rest/auth → tools → services → mail, db → core. */
const forbidden: Record<string, readonly string[]> = {
  core: ['db', 'services', 'tools', 'auth', 'rest', 'server', 'cli'],
  db: ['services', 'tools', 'auth', 'rest', 'server', 'cli'],
  services: ['tools', 'auth', 'rest', 'server', 'cli'],
  tools: ['auth', 'rest', 'server', 'cli'],
  parsing: ['services', 'tools', 'auth', 'rest', 'server', 'cli'],
  // Outbound mail (templates, sending, the worker) sits beside the database layer; services queue it.
  mail: ['services', 'tools', 'auth', 'rest', 'server', 'cli'],
  // The MCP Apps views run in the host's browser and reach the service only through the host.
  views: ['core', 'db', 'services', 'tools', 'auth', 'rest', 'server', 'cli', 'parsing'],
};

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** The top-level folder each relative import of a file resolves to. */
function importedLayers(file: string): { spec: string; layer: string }[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => {
    const target = relative(root, normalize(join(root, dirname(file), spec)));
    return { spec, layer: target.split(/[\\/]/)[0]! };
  });
}

describe('layering', () => {
  for (const [layer, banned] of Object.entries(forbidden)) {
    it(`nothing in ${layer}/ imports from ${banned.join(', ')}`, () => {
      const offences = sources(layer).flatMap((file) =>
        importedLayers(file)
          .filter((i) => banned.includes(i.layer))
          .map((i) => `${file} imports ${i.spec}`),
      );
      expect(offences).to.deep.equal([]);
    });
  }

  it('nothing in tools/ imports the MCP SDK server (mcp/ is the adapter)', () => {
    const offenders = sources('tools').filter((file) =>
      /from '@modelcontextprotocol\/sdk\/server/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('no domain service imports express or the MCP SDK', () => {
    const offenders = sources('services').filter((file) =>
      /from '(express|@modelcontextprotocol\/sdk[^']*)'/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('the tools reach the database for writes only through the services (no change log written by a tool)', () => {
    const offenders = sources('tools').filter((file) =>
      /\.changeLog\.record\(|\.events\.append\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('the scan resolves imports to their layer (server/app.ts reaches rest/ and tools/)', () => {
    const layers = importedLayers(join('server', 'app.ts')).map((i) => i.layer);
    expect(layers).to.include.members(['rest', 'tools']);
  });
});
