// Writes the extraction corpus (test/helpers/workbook-corpus.ts) to test/fixtures/workbooks/: each
// workbook and a JSON of the data points expected from it. Deterministic: run again, same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus } from '../test/helpers/workbook-corpus.ts';

const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'workbooks');
mkdirSync(dir, { recursive: true });
for (const file of corpus()) {
  writeFileSync(join(dir, file.file), file.content);
  const expected = { fiscal_year_end_month: file.fyEndMonth, points: file.expected };
  writeFileSync(join(dir, `${file.file}.json`), `${JSON.stringify(expected, null, 2)}\n`);
}
