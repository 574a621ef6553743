// Regenerates the committed artefacts derived from the code: the OpenAPI document, the README's tool
// table and the tool snapshot. `--check` fails (exit 1) when a committed copy differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiText, toolSnapshot, toolTable } from './artefacts.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

function withTable(readme: string): string {
  const start = '<!-- tools:start -->';
  const end = '<!-- tools:end -->';
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < 0) throw new Error('README.md lacks the tools:start/tools:end markers');
  return `${readme.slice(0, a + start.length)}\n${toolTable()}\n${readme.slice(b)}`;
}

const outputs: [string, (current: string) => string][] = [
  ['docs/openapi.json', () => openApiText()],
  ['test/tools.snapshot.json', () => toolSnapshot()],
  ['README.md', (current) => withTable(current)],
];

let drift = 0;
for (const [file, make] of outputs) {
  const path = join(root, file);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // not generated yet
  }
  const next = make(current);
  if (next === current) continue;
  if (check) {
    console.error(`${file} is out of date: run npm run generate and commit the result`);
    drift++;
  } else {
    writeFileSync(path, next);
    console.log(`wrote ${file}`);
  }
}
process.exit(drift > 0 ? 1 : 0);
