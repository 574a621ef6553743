import { expect } from 'chai';
import fc from 'fast-check';
import * as D from '../core/decimal.ts';
import {
  compareDecimal,
  convertDecimal,
  decimalFromNumber,
  isDecimal,
  isNegativeDecimal,
  isZeroDecimal,
  multiplyDecimal,
  normalizeDecimal,
  parseDecimal,
  readDecimal,
  scaleOf,
} from '../core/decimal.ts';

/** A decimal string and the scaled integer it stands for. */
const decimalText = fc
  .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 8 }))
  .map(([units, scale]) => {
    const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
    const body = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
    return { text: units < 0n ? `-${body}` : body, units, scale };
  });

const dec = (text: string) => parseDecimal(text)!;

describe('exact decimal strings', () => {
  it('recognises plain decimals only', () => {
    for (const ok of ['0', '12', '-0.5', '+3', '1000.00']) expect(isDecimal(ok), ok).to.equal(true);
    for (const bad of ['', '1e3', '1,000', '.5', '5.', 'abc', 'NaN'])
      expect(isDecimal(bad), bad).to.equal(false);
    expect(scaleOf('1000.00')).to.equal(2);
    expect(scaleOf('great')).to.equal(0);
  });

  it('ignores white space around a value when checking or scaling it, but not when normalising it', () => {
    expect(isDecimal(' 12.5 ')).to.equal(true);
    expect(scaleOf(' 12.50')).to.equal(2);
    expect(multiplyDecimal(' 2 ', '1.5', 6)).to.equal('3');
    expect(parseDecimal(' 12')).to.equal(null);
    expect(normalizeDecimal('12 ')).to.equal(null);
  });

  it('parses a plain decimal into units and scale, and reads stored values more generously', () => {
    expect(parseDecimal('-12.50')).to.deep.equal({ units: -1250n, scale: 2 });
    expect(parseDecimal('+007')).to.deep.equal({ units: 7n, scale: 0 });
    for (const bad of ['', '.5', '5.', '1e3', '-', '.', ' 1']) expect(parseDecimal(bad), bad).to.equal(null);
    expect(readDecimal(' .5 ')).to.deep.equal({ units: 5n, scale: 1 });
    expect(readDecimal('-5.')).to.deep.equal({ units: -5n, scale: 0 });
    expect(readDecimal('+.25')).to.deep.equal({ units: 25n, scale: 2 });
    for (const bad of ['', '.', '-', '1e3', '1,000', 'n/a']) expect(readDecimal(bad), bad).to.equal(null);
  });

  it('multiplies exactly, keeping at least the asked decimal places', () => {
    expect(multiplyDecimal('2000.50', '1.10', 6, 2)).to.equal('2200.55');
    expect(multiplyDecimal('3000', '1.20', 6, 0)).to.equal('3600');
    expect(multiplyDecimal('1000.00', '1.1', 6, 2)).to.equal('1100.00');
    expect(multiplyDecimal('0.1', '0.2', 6)).to.equal('0.02');
    // Beyond what a float holds exactly.
    expect(multiplyDecimal('123456789012345678.91', '1.000000001', 6, 2)).to.equal(
      '123456789135802467.922346',
    );
  });

  it('rounds half away from zero at the maximum scale, for either sign', () => {
    expect(multiplyDecimal('1.0000005', '1', 6)).to.equal('1.000001');
    expect(multiplyDecimal('-1.0000005', '1', 6)).to.equal('-1.000001');
    expect(multiplyDecimal('1.0000004', '1', 6)).to.equal('1');
    expect(multiplyDecimal('-0.0000001', '1', 6)).to.equal('0');
    expect(multiplyDecimal('-2.5', '2', 6)).to.equal('-5');
  });

  it('answers null for operands that are not decimals', () => {
    expect(multiplyDecimal('great', '1.1', 6)).to.equal(null);
    expect(multiplyDecimal('10', '', 6)).to.equal(null);
  });

  it('converts at a rate to at most six places, keeping the decimal places of the value', () => {
    expect(convertDecimal('1000.00', '1.1')).to.equal('1100.00');
    expect(convertDecimal('1000', '1.08')).to.equal('1080');
    expect(convertDecimal('2500.5', '0.9123456')).to.equal('2281.320173');
    expect(convertDecimal('1.12345678', '1')).to.equal('1.123457');
    expect(convertDecimal('text', '1.1')).to.equal(null);
  });
});

describe('decimal strings of the cap table', () => {
  it('normalises sign and leading zeros and keeps the decimal places given', () => {
    expect(normalizeDecimal('+007.50')).to.equal('7.50');
    expect(normalizeDecimal('-0.00')).to.equal('0.00');
    expect(normalizeDecimal('-12')).to.equal('-12');
    for (const bad of ['', '1e6', '1,000', ' 1', '1.', '.5', 'abc'])
      expect(normalizeDecimal(bad), bad).to.equal(null);
  });

  it('writes JSON numbers without exponents', () => {
    expect(decimalFromNumber(1e21)).to.equal('1000000000000000000000');
    expect(decimalFromNumber(1.5e-7)).to.equal('0.00000015');
    expect(decimalFromNumber(-2500000.5)).to.equal('-2500000.5');
    expect(decimalFromNumber(Number.NaN)).to.equal(null);
  });

  it('orders decimal strings exactly as their scaled integers', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        const scale = Math.max(a.scale, b.scale);
        const x = a.units * 10n ** BigInt(scale - a.scale);
        const y = b.units * 10n ** BigInt(scale - b.scale);
        expect(compareDecimal(a.text, b.text)).to.equal(x < y ? -1 : x > y ? 1 : 0);
        expect(compareDecimal(normalizeDecimal(a.text)!, a.text)).to.equal(0);
      }),
    );
  });

  it('tells negative and zero values apart, and refuses text that is not a plain decimal', () => {
    expect(isNegativeDecimal('-0.01')).to.equal(true);
    expect(isNegativeDecimal('-0.00')).to.equal(false);
    expect(isNegativeDecimal('3')).to.equal(false);
    expect(isZeroDecimal('-0')).to.equal(true);
    expect(isZeroDecimal('0.000')).to.equal(true);
    expect(isZeroDecimal('0.001')).to.equal(false);
    expect(() => compareDecimal('1e3', '1')).to.throw('not a decimal: 1e3');
    expect(() => isNegativeDecimal(' 1')).to.throw('not a decimal');
    expect(() => isZeroDecimal('')).to.throw('not a decimal');
  });
});

describe('decimal arithmetic of the analytics', () => {
  it('adds, subtracts, negates and sums at the larger scale', () => {
    expect(D.toText(D.add(dec('1.5'), dec('2.25')))).to.equal('3.75');
    expect(D.toText(D.sub(dec('1.5'), dec('2.25')))).to.equal('-0.75');
    expect(D.toText(D.neg(dec('-0.10')))).to.equal('0.10');
    expect(D.toText(D.abs(dec('-7.0')))).to.equal('7.0');
    expect(D.toText(D.abs(dec('7')))).to.equal('7');
    expect(D.toText(D.sum([dec('0.1'), dec('0.2'), dec('-0.3')]))).to.equal('0.0');
    expect(D.toText(D.sum([]))).to.equal('0');
    expect(D.toText(D.mul(dec('1.10'), dec('-3')))).to.equal('-3.30');
    expect(D.toText(D.fromInteger(12n))).to.equal('12');
    expect(D.ZERO).to.deep.equal({ units: 0n, scale: 0 });
  });

  it('compares and signs exactly', () => {
    expect(D.compare(dec('1.50'), dec('1.5'))).to.equal(0);
    expect(D.compare(dec('-2'), dec('1'))).to.equal(-1);
    expect(D.compare(dec('0.0001'), dec('0'))).to.equal(1);
    expect(D.sign(dec('-0.00'))).to.equal(0);
    expect(D.sign(dec('-0.01'))).to.equal(-1);
  });

  it('divides to a given number of places, rounding half away from zero', () => {
    expect(D.toText(D.div(dec('2'), dec('3'), 2))).to.equal('0.67');
    expect(D.toText(D.div(dec('-2'), dec('3'), 2))).to.equal('-0.67');
    expect(D.toText(D.div(dec('1'), dec('8'), 2))).to.equal('0.13');
    expect(D.toText(D.div(dec('-1'), dec('-8'), 2))).to.equal('0.13');
    expect(D.toText(D.div(dec('10.5'), dec('0.25'), 0))).to.equal('42');
    expect(() => D.div(dec('1'), dec('0.00'), 2)).to.throw(RangeError);
  });

  it('rounds to exactly the asked places and prints them', () => {
    expect(D.toText(D.round(dec('1.005'), 2))).to.equal('1.01');
    expect(D.toText(D.round(dec('-1.005'), 2))).to.equal('-1.01');
    expect(D.toText(D.round(dec('1.5'), 3))).to.equal('1.500');
    expect(D.toFixed(dec('2.344'), 2)).to.equal('2.34');
    expect(D.toFixed(dec('-0.004'), 2)).to.equal('0.00');
    expect(D.toFixed(dec('7'), 2)).to.equal('7.00');
  });

  it('prints a value at its own scale, and as a number only on request', () => {
    expect(D.toText(dec('-0.05'))).to.equal('-0.05');
    expect(D.toText({ units: 5n, scale: 3 })).to.equal('0.005');
    expect(D.toNumber(dec('1234.5'))).to.equal(1234.5);
  });

  it('agrees with scaled-integer arithmetic for any operands', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        const x = dec(a.text);
        const y = dec(b.text);
        const scale = Math.max(a.scale, b.scale);
        const ax = a.units * 10n ** BigInt(scale - a.scale);
        const by = b.units * 10n ** BigInt(scale - b.scale);
        expect(D.add(x, y)).to.deep.equal({ units: ax + by, scale });
        expect(D.sub(x, y)).to.deep.equal({ units: ax - by, scale });
        expect(D.mul(x, y)).to.deep.equal({ units: a.units * b.units, scale: a.scale + b.scale });
        expect(normalizeDecimal(a.text)).to.equal(D.toText(x));
      }),
    );
  });
});
