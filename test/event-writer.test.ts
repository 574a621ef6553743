import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { productSources, root, visit } from './helpers/product-sources.ts';

/** The one module that appends change events, and the repository holding the insert it calls. */
const WRITER = join('services', 'changes.ts');
const EVENTS_REPO = join('db', 'repos', 'events.ts');

/** Whether a call's first argument is the string 'events' (`db('events')`, `.into('events')`). */
function namesEvents(call: ts.CallExpression): boolean {
  const [first] = call.arguments;
  return first !== undefined && ts.isStringLiteralLike(first) && first.text === 'events';
}

/** The innermost receiver of a chain (`db('events').where(...).insert` → `db('events')`) names events. */
function chainOnEvents(node: ts.Expression): boolean {
  let e: ts.Expression = node;
  while (ts.isCallExpression(e) || ts.isPropertyAccessExpression(e)) {
    if (ts.isCallExpression(e) && namesEvents(e)) return true;
    e = e.expression;
  }
  return false;
}

/** Places in one source that write the events table, as `line: text`. */
function eventWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().split('\n')[0]}`;
  visit(source, (node) => {
    if (ts.isStringLiteralLike(node) && /insert\s+into\s+["`]?events\b/i.test(node.text))
      found.push(at(node));
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
    const { name, expression } = node.expression;
    const receiver = expression.getText();
    // The repository's append: `repos.events.append(…)`, `eventsRepo(trx).append(…)`.
    if (name.text === 'append' && (/(^|\.)events$/.test(receiver) || /^eventsRepo\(/.test(receiver)))
      found.push(at(node));
    // A query builder over the table: `db('events').insert(…)`, `trx.insert(…).into('events')`.
    if (['insert', 'upsert'].includes(name.text) && chainOnEvents(expression)) found.push(at(node));
    if (name.text === 'into' && namesEvents(node)) found.push(at(node));
  });
  return found;
}

describe('one writer of the events table', () => {
  it('appends change events only through services/changes.ts, whose repository holds the one insert', () => {
    const writes = productSources().flatMap((file) =>
      eventWrites(file, readFileSync(join(root, file), 'utf8')).map((w) => ({ file, w })),
    );
    const outside = writes
      .filter(({ file, w }) => !(file === WRITER && /\.append\(/.test(w)))
      .filter(({ file, w }) => !(file === EVENTS_REPO && /\.insert\(/.test(w)));
    expect(outside.map((o) => o.w)).to.deep.equal([]);
    expect(writes.filter((o) => o.file === WRITER)).to.have.length(1);
  });

  it('finds a second writer however it reaches the table', () => {
    const text = [
      "await repos.events.append({ type: 'x' });",
      'await eventsRepo(trx).append(e);',
      "await trx('events').insert(row);",
      "await db.insert(row).into('events');",
      "await db.raw('INSERT INTO events (id) VALUES (?)', [id]);",
      "await db('events').where('seq', 1).first();",
    ].join('\n');
    expect(eventWrites('x.ts', text).map((w) => w.split(':')[1])).to.deep.equal(['1', '2', '3', '4', '5']);
  });
});
