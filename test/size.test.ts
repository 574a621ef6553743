import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { parseSource, productSources, root, visit } from './helpers/product-sources.ts';

const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 600;

/** Seeds and migrations are data written out as code; they are not held to the size rules. */
const EXEMPT = [join('db', 'seeds'), join('db', 'migrations')];

/**
 * Functions still over the limit, as `file:name`. The list only shrinks: an entry that is no longer
 * over fails the test until it is removed, and a new long function is never added.
 */
const LONG_FUNCTIONS_LEFT: readonly string[] = [];

/** Files still over the limit; shrinking only, as above. */
const LONG_FILES_LEFT: readonly string[] = [];

const sources = () => productSources().filter((f) => !EXEMPT.some((dir) => f.startsWith(dir)));

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `${parent.expression.getText().split('\n')[0]}(…)`;
  return '(anonymous)';
}

function lines(source: ts.SourceFile, node: ts.Node): number {
  const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
  return source.getLineAndCharacterOfPosition(node.getEnd()).line - start + 1;
}

const hasBody = (node: ts.Node): boolean => ts.isFunctionLike(node) && 'body' in node && !!node.body;

/** The functions written inside `node`, not inside one of those. */
function innerFunctions(node: ts.Node): ts.Node[] {
  const found: ts.Node[] = [];
  const walk = (n: ts.Node): void => {
    if (hasBody(n)) found.push(n);
    else n.forEachChild(walk);
  };
  node.forEachChild(walk);
  return found;
}

/**
 * Every function of a file whose own lines (its span less the functions written inside it, which are
 * measured on their own) exceed the limit, as `file:name`: a repository factory returning an object
 * of short methods is as long as its methods, not their sum.
 */
function longFunctions(file: string): { key: string; lines: number }[] {
  const source = parseSource(file);
  const found: { key: string; lines: number }[] = [];
  visit(source, (node) => {
    if (!hasBody(node)) return;
    const own = lines(source, node) - innerFunctions(node).reduce((sum, f) => sum + lines(source, f), 0);
    if (own > MAX_FUNCTION_LINES) found.push({ key: `${file}:${nameOf(node)}`, lines: own });
  });
  return found;
}

describe('size of the product code', () => {
  it(`no function over ${MAX_FUNCTION_LINES} lines but the listed ones, which stay listed only while over`, () => {
    const long = sources().flatMap(longFunctions);
    const keys = long.map((l) => l.key);
    expect(
      long.filter((l) => !LONG_FUNCTIONS_LEFT.includes(l.key)).map((l) => `${l.key} (${l.lines} lines)`),
    ).to.deep.equal([]);
    expect(LONG_FUNCTIONS_LEFT.filter((k) => !keys.includes(k))).to.deep.equal([]);
  });

  it(`no file over ${MAX_FILE_LINES} lines but the listed ones, which stay listed only while over`, () => {
    const long = sources()
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_FILE_LINES);
    expect(
      long.filter((f) => !LONG_FILES_LEFT.includes(f.file)).map((f) => `${f.file} (${f.lines} lines)`),
    ).to.deep.equal([]);
    expect(LONG_FILES_LEFT.filter((f) => !long.some((l) => l.file === f))).to.deep.equal([]);
  });
});
