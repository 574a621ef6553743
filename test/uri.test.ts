import { expect } from 'chai';
import { uriProblem } from '../core/uri.ts';

describe('URIs by RFC 3986', () => {
  it('takes absolute URIs with authority, IP literals, ports, escapes, queries and fragments', () => {
    for (const uri of [
      'https://app.example/cb',
      'http://127.0.0.1:9999/cb?state=a%20b&x=1',
      'http://[::1]:5000/cb',
      'https://user:pw@hooks.example.com:8443/a/b;c=d/e@f?q=1/2?3#frag/x?y',
      "https://example.com/!$&'()*+,;=",
      'myapp:/callback',
      'urn:ietf:rfc:3986',
      'https://[v1.fe80::a+en1]/',
    ])
      expect(uriProblem(uri), uri).to.equal(undefined);
  });

  it('refuses characters outside the RFC set, naming the first one and where it is', () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1:9999/cb"><img src=x onerror=alert(1)>', '"\\""'],
      ['https://hooks.example/<img>', '"<"'],
      ['https://hooks.example/a b', '" "'],
      ['https://hooks.example\\@evil.example/', '"\\\\"'],
      ['https://hooks.example/\u0000', '"\\u0000"'],
      ['https://hooks.example/\n', '"\\n"'],
      ['https://hooks.example/{id}', '"{"'],
      ['https://hooks.example/a|b', '"|"'],
      ['https://hooks.example/`', '"`"'],
      ['https://hooks.example/ä', '"ä"'],
    ];
    for (const [uri, shown] of cases) {
      const problem = uriProblem(uri);
      expect(problem, uri).to.match(
        new RegExp(`^holds ${shown.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')} at position \\d+`),
      );
    }
    expect(uriProblem('https://a.example/x"y')).to.equal(
      'holds "\\"" at position 20, which a URI may not (RFC 3986): percent-encode it',
    );
  });

  it('refuses a relative reference, a bad escape, and delimiters out of place', () => {
    const cases: [string, RegExp][] = [
      ['/callback', /not an absolute URI/],
      ['//hooks.example/', /not an absolute URI/],
      ['1https://hooks.example/', /not an absolute URI/],
      ['https://hooks.example/%zz', /does not start a %XX escape/],
      ['https://hooks.example/%4', /does not start a %XX escape/],
      ['https://hooks.example:80a/', /port is not a number/],
      ['https://[not-an-ip]/', /not a valid IP literal/],
      ['https://ho[st.example/', /host/],
      ['https://hooks.example/a[1]', /path/],
      ['https://hooks.example/?a=[1]', /query/],
      ['https://hooks.example/#a#b', /fragment/],
    ];
    for (const [uri, why] of cases) expect(uriProblem(uri), uri).to.match(why);
  });

  it('checks a URI of 100,000 characters in linear time', () => {
    const long = `https://hooks.example/${'a/%20'.repeat(20_000)}?${'b'.repeat(1000)}!`;
    const started = performance.now();
    expect(uriProblem(long)).to.equal(undefined);
    expect(uriProblem(`${long}<`)).to.match(/^holds "<"/);
    expect(performance.now() - started).to.be.below(200);
  });
});
