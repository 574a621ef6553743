import { expect } from 'chai';
import { z } from 'zod';
import { registry } from '../tools/registry.ts';

type Io = 'input' | 'output';

/** The JSON types a property schema allows, null aside (an integer is a number to a client). */
function typesOf(node: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const visit = (n: unknown) => {
    if (!n || typeof n !== 'object') return;
    const s = n as Record<string, unknown>;
    const type = s.type;
    for (const t of Array.isArray(type) ? type : type === undefined ? [] : [type]) found.add(String(t));
    if ('const' in s && type === undefined) found.add(s.const === null ? 'null' : typeof s.const);
    for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[key])) s[key].forEach(visit);
  };
  visit(node);
  found.delete('null');
  if (found.delete('integer')) found.add('number');
  return [...found].sort();
}

/** Every named property in a tool's schema, with the types it allows. */
function properties(schema: unknown, where: string, out: Map<string, [string, string[]][]>, io: Io) {
  const visit = (n: unknown) => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!n || typeof n !== 'object') return;
    const s = n as Record<string, unknown>;
    if (s.properties && typeof s.properties === 'object') {
      for (const [name, field] of Object.entries(s.properties as Record<string, Record<string, unknown>>)) {
        const types = typesOf(field);
        if (!types.length) continue;
        out.set(name, [...(out.get(name) ?? []), [`${where} ${io}`, types]]);
      }
    }
    for (const [key, child] of Object.entries(s)) if (key !== 'default' && key !== 'enum') visit(child);
  };
  visit(schema);
}

/**
 * Names that hold truly different data in different tools, so one JSON type cannot fit all. Each
 * reads as its tool documents it; none is a number in one place and the same figure as a string
 * in another.
 */
const DIFFERENT_DATA: Record<string, string> = {
  ids: 'an id filter (array) in list_companies; the ids created per kind (object) in add_securities',
  company: 'the company (object) of a custom column value; the company name (string) of a budget',
  value:
    'a custom column value (string, list or object by column type); a metric value (string); an amount (decimal) in a money input',
  period:
    'a period label (string) of budgets and requests; a period with start and end (object) of analytics',
  source: 'a document source (string); where a figure came from (object)',
  fair_value: 'a fund total in the firm currency (decimal string); a dated fair-value override (object)',
  investment_amount:
    "a fund total in the firm currency (decimal string); one security's amount (MoneyAmount object)",
  pre_money_valuation: "a fund-level figure (decimal string); a round's valuation (MoneyAmount object)",
  post_money_valuation: 'a fund-level figure (decimal string); an override (object)',
  total_cost: "a security's total cost (MoneyAmount object, or its decimal in the token warrant summary)",
};

/**
 * Whether the places a name appears agree: the same types everywhere, except that an input may
 * accept more than a result gives (a decimal input takes a number or a string; results give one).
 */
function agree(uses: [string, string[]][]): boolean {
  const outputs = [...uses].filter(([where]) => where.endsWith('output')).map(([, t]) => t.join('|'));
  const inputs = [...uses].filter(([where]) => where.endsWith('input')).map(([, t]) => t);
  const outputTypes = new Set(outputs);
  if (outputTypes.size > 1) return false;
  const given = outputs[0]?.split('|');
  if (!given) return new Set(inputs.map((t) => t.join('|'))).size <= 1;
  return inputs.every((accepted) => given.every((t) => accepted.includes(t)));
}

describe('one JSON type per field name across tools', () => {
  const uses = new Map<string, [string, string[]][]>();
  for (const tool of registry) {
    for (const io of ['input', 'output'] as const) {
      const schema = z.toJSONSchema(io === 'input' ? tool.input : tool.output, {
        io,
        unrepresentable: 'any',
      });
      properties(schema, tool.name, uses, io);
    }
  }

  it('gives each property name one type in every result, and inputs accept what results give', () => {
    const clashes = [...uses]
      .filter(([name, where]) => !(name in DIFFERENT_DATA) && !agree(where))
      .map(
        ([name, where]) =>
          `${name}: ${[...new Set(where.map(([at, types]) => `${at} ${types.join('|')}`))].join(', ')}`,
      );
    expect(clashes).to.deep.equal([]);
  });

  it('gives fx_rate as a number in every result', () => {
    const fx = uses.get('fx_rate')!;
    const outputs = [...fx].filter(([where]) => where.endsWith('output'));
    expect(outputs.length).to.be.greaterThan(3);
    for (const [where, types] of outputs) expect(types, where).to.deep.equal(['number']);
  });

  it('keeps each allow-listed name truly mixed, so the list does not outlive its reason', () => {
    for (const name of Object.keys(DIFFERENT_DATA)) expect(agree(uses.get(name)!), name).to.equal(false);
  });
});
