import { expect } from 'chai';
import { isDecimal, multiplyDecimal, scaleOf } from '../db/decimal.ts';

describe('exact decimal strings', () => {
  it('recognises plain decimals only', () => {
    for (const ok of ['0', '12', '-0.5', '+3', '1000.00']) expect(isDecimal(ok), ok).to.equal(true);
    for (const bad of ['', '1e3', '1,000', '.5', '5.', 'abc', 'NaN'])
      expect(isDecimal(bad), bad).to.equal(false);
    expect(scaleOf('1000.00')).to.equal(2);
    expect(scaleOf('great')).to.equal(0);
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
});
