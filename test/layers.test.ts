import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { cruise, type IViolation } from 'dependency-cruiser';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs'));
const folders = readdirSync(root, { withFileTypes: true })
  .filter(
    (e) =>
      e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist', 'test-output'].includes(e.name),
  )
  .map((e) => e.name);

/** The rules the layers config breaks in `dirs` under `baseDir`, as "rule: from → to". */
async function violations(baseDir: string, dirs: string[]): Promise<string[]> {
  const result = await cruise(dirs, {
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    ...config.options,
  });
  if (typeof result.output === 'string') throw new Error('expected a cruise result');
  return result.output.summary.violations.map(
    (v: IViolation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.length} steps)` : ''}`,
  );
}

/** A throwaway tree of files, so a rule can be shown to fail without product code that breaks it. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function fixtureViolations(files: Record<string, string>): Promise<string[]> {
  const dir = tree(files);
  try {
    return await violations(dir, [...new Set(Object.keys(files).map((f) => f.split('/')[0]!))]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('layering', function () {
  this.timeout(180_000);

  it('every top-level folder has its row in the allowed-dependency matrix', () => {
    const ruled = new Set<string>(
      config.forbidden.map((r: { name: string }) => r.name.replace(/-imports$/, '')),
    );
    expect(folders.filter((f) => f !== 'test' && !ruled.has(f))).to.deep.equal([]);
  });

  it('the imports of the product, the tests, the scripts and the benches follow the matrix, with no circle', async () => {
    expect(await violations(root, folders)).to.deep.equal([]);
  });

  it('refuses a tool that imports a repository write module or the change log', async () => {
    const found = await fixtureViolations({
      'tools/bad.ts': "import { record } from '../db/repos/change-log.ts';\nexport const x = record;\n",
      'db/repos/change-log.ts': 'export const record = 1;\n',
    });
    expect(found).to.deep.equal(['tools-no-repository-writes: tools/bad.ts → db/repos/change-log.ts']);
  });

  it('refuses a tool or a figure that imports the full repositories or the way back to them from the read-only ones', async () => {
    const found = await fixtureViolations({
      'tools/bad.ts': "import { writable } from '../db/repos/writable.ts';\nexport const x = writable;\n",
      'analytics/bad.ts':
        "import { createRepos } from '../db/repos/index.ts';\nexport const x = createRepos;\n",
      'db/repos/writable.ts': 'export const writable = 1;\n',
      'db/repos/index.ts': 'export const createRepos = 1;\n',
    });
    expect(found).to.have.members([
      'tools-no-repository-writes: tools/bad.ts → db/repos/writable.ts',
      'tools-no-repository-writes: analytics/bad.ts → db/repos/index.ts',
    ]);
  });

  it('refuses an upward import from a folder the old scan had no rule for', async () => {
    const found = await fixtureViolations({
      'alerts/bad.ts': "import { t } from '../tools/t.ts';\nexport const x = t;\n",
      'tools/t.ts': 'export const t = 1;\n',
    });
    expect(found).to.deep.equal(['alerts-imports: alerts/bad.ts → tools/t.ts']);
  });

  it('refuses an import that climbs through a third folder', async () => {
    const found = await fixtureViolations({
      'analytics/bad.ts': "import { w } from '../webhooks/w.ts';\nexport const x = w;\n",
      'webhooks/w.ts': "import { t } from '../tools/t.ts';\nexport const w = t;\n",
      'tools/t.ts': 'export const t = 1;\n',
    });
    expect(found).to.have.members([
      'analytics-imports: analytics/bad.ts → webhooks/w.ts',
      'webhooks-imports: webhooks/w.ts → tools/t.ts',
    ]);
  });

  it('refuses a circle, even one made of type imports', async () => {
    const found = await fixtureViolations({
      'analytics/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'analytics/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
    });
    expect(found).to.deep.equal(['no-circular: analytics/a.ts → analytics/b.ts (2 steps)']);
  });

  it('refuses express or the MCP SDK in the tools and the domain', async () => {
    const found = await fixtureViolations({
      'tools/bad.ts': "import express from 'express';\nexport const x = express;\n",
    });
    expect(found).to.deep.equal(['domain-no-protocols: tools/bad.ts → express']);
  });
});
