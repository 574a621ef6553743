import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';

// A tool is handed the repositories' read methods only (db/repos/read.ts): the compiler refuses a
// tool that calls a repository's write method, holds the change log or reaches a write repository.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(root, 'test', 'fixtures', 'refused', 'tool-writes-a-repository.ts');

/** The compiler's errors in `file`, compiled with the project's options, as "line: message". */
function compileErrors(file: string): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram([file], options);
  const source = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, source).map((d) => {
    const line = source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    return `${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`;
  });
}

/** The line after each `// refused:` comment of the fixture. */
function refusedLines(file: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) => (text.trim().startsWith('// refused:') ? [i + 2] : []));
}

describe('read-only repositories for tools', function () {
  this.timeout(120_000);

  it('refuses at compile time a tool that calls a repository write, holds the change log or a write repository', () => {
    const errors = compileErrors(FIXTURE);
    const lines = refusedLines(FIXTURE);
    expect(lines).to.have.length(3);
    expect(errors.map((e) => Number(e.split(':')[0]))).to.deep.equal(lines);
    expect(errors[0]).to.match(/Property 'update' does not exist on type/);
    expect(errors[1]).to.match(/Property 'changeLog' does not exist on type 'ReadRepos'/);
    expect(errors[2]).to.match(/Property 'metricWrites' does not exist on type 'ReadRepos'/);
  });
});
