import { expect } from 'chai';
import { tokenHash } from '../core/secrets.ts';
import {
  FounderLinkRefused,
  founderContext,
  linkExpiry,
  revokeLinks,
  verifyFounderLink,
} from '../services/founder-links.ts';
import type { LoopContext } from '../services/information-common.ts';
import { closeRequest, deleteRequest } from '../services/information-requests.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { addContact, contextOf, linkFor, quarterRequest, sentRequest } from './helpers/information.ts';
import { TestClock } from './helpers/server.ts';

for (const dialect of dialects) {
  describe(`founder links (${dialect.name}) @db`, function () {
    this.timeout(30000);
    let t: TestDb;
    let fx: Fixture;
    let ctx: LoopContext;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    let request: string;
    let acmeReport: string;
    let betaReport: string;
    let ada: string;
    let bob: string;

    const refusal = async (token: string, options: { reportId?: string } = {}) => {
      try {
        await verifyFounderLink({ repos: fx.repos, clock }, token, options);
        return 'accepted';
      } catch (err) {
        if (err instanceof FounderLinkRefused) {
          expect(err.status).to.equal(404);
          return err.reason;
        }
        throw err;
      }
    };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ctx = await contextOf(fx.repos, clock, fx.editor.user.email);
      ada = (await addContact(ctx, fx.companies.acme.id, 'Ada Founder', 'Ada@Acme.example')).id;
      bob = (await addContact(ctx, fx.companies.acme.id, 'Bob Finance', 'bob@acme.example')).id;
      await addContact(ctx, fx.companies.beta.id, 'Cy Beta', 'cy@beta.example');
      const sent = await sentRequest(ctx, quarterRequest([fx.companies.acme.id, fx.companies.beta.id]));
      request = sent.id;
      acmeReport = sent.reportOf.get(fx.companies.acme.id)!;
      betaReport = sent.reportOf.get(fx.companies.beta.id)!;
    });
    after(async () => {
      await t?.drop();
    });

    it('mints one link per contact when a request is sent, each expiring 30 days after the due date', async () => {
      const links = await fx.repos.reportLinks.ofReport(acmeReport);
      expect(links.map((l) => l.contact_email).sort()).to.deep.equal([
        'ada@acme.example',
        'bob@acme.example',
      ]);
      for (const l of links) expect(l.expires_at).to.equal(linkExpiry('2026-01-31', 30));
      expect(linkExpiry('2026-01-31', 30)).to.equal('2026-03-02T23:59:59.999Z');
    });

    it('opens the report of a good link as its contact, limited to its company, and marks it used', async () => {
      const link = await linkFor(ctx, acmeReport, ada);
      const session = await verifyFounderLink({ repos: fx.repos, clock }, link.token);
      expect(session.link.report_id).to.equal(acmeReport);
      expect(session.company.id).to.equal(fx.companies.acme.id);
      expect(session.contact).to.deep.include({ id: ada, name: 'Ada Founder', email: 'ada@acme.example' });
      const founder = founderContext({ repos: fx.repos, clock }, session);
      expect(founder.principal.kind).to.equal('contact');
      expect(founder.principal.scope.companyIds).to.deep.equal([fx.companies.acme.id]);
      expect(founder.principal.scopes).to.deep.equal([]);
      const stored = await t.db('information_report_links').where('id', link.id).first();
      expect(stored.last_used_at).to.equal(clock.now().toISOString());
    });

    it('keeps only the SHA-256 of a token: the token itself is nowhere in the table', async () => {
      const link = await linkFor(ctx, acmeReport, ada);
      expect(link.token).to.match(/^frl_[A-Za-z0-9_-]{43}$/);
      const rows = await t.db('information_report_links');
      expect(JSON.stringify(rows)).not.to.include(link.token.slice(4));
      expect(rows.map((r) => r.token_hash)).to.include(tokenHash(link.token));
    });

    it('refuses a tampered, truncated or made-up token', async () => {
      const { token } = await linkFor(ctx, acmeReport, ada);
      const last = token.at(-1) === 'A' ? 'B' : 'A';
      expect(await refusal(`${token.slice(0, -1)}${last}`)).to.equal('unknown');
      expect(await refusal(token.slice(0, -2))).to.equal('unknown');
      expect(await refusal(`frl_${'x'.repeat(43)}`)).to.equal('unknown');
      expect(await refusal('')).to.equal('unknown');
      expect(await refusal(token)).to.equal('accepted');
    });

    it('refuses a link used for another report', async () => {
      const { token } = await linkFor(ctx, acmeReport, ada);
      expect(await refusal(token, { reportId: betaReport })).to.equal('other_report');
      expect(await refusal(token, { reportId: acmeReport })).to.equal('accepted');
    });

    it('refuses a link once it has expired, and accepts it up to its last moment', async () => {
      const { token } = await linkFor(ctx, acmeReport, bob, '2026-01-06T00:00:00.000Z');
      clock.set(new Date('2026-01-05T23:59:59.000Z'));
      expect(await refusal(token)).to.equal('accepted');
      clock.set(new Date('2026-01-06T00:00:00.001Z'));
      expect(await refusal(token)).to.equal('expired');
      clock.set(new Date('2026-01-05T12:00:00.000Z'));
    });

    it('revokes one link, a contact’s links, or every link of a report', async () => {
      const one = await linkFor(ctx, acmeReport, ada);
      const other = await linkFor(ctx, acmeReport, ada);
      const bobs = await linkFor(ctx, acmeReport, bob);
      expect(await revokeLinks(ctx, acmeReport, { linkId: one.id })).to.deep.equal([one.id]);
      expect(await refusal(one.token)).to.equal('revoked');
      expect(await refusal(other.token)).to.equal('accepted');
      expect(await revokeLinks(ctx, acmeReport, { contactId: ada })).to.include(other.id);
      expect(await refusal(other.token)).to.equal('revoked');
      expect(await refusal(bobs.token)).to.equal('accepted');
      await revokeLinks(ctx, acmeReport, {});
      expect(await refusal(bobs.token)).to.equal('revoked');
      // Revoking again revokes nothing more.
      expect(await revokeLinks(ctx, acmeReport, {})).to.deep.equal([]);
    });

    it('refuses a revocation by another firm or a user who cannot see the company, as for no report', async () => {
      const other = await contextOf(fx.repos, clock, fx.other.user.email);
      const err = await revokeLinks(other, acmeReport, {}).catch((e: Error & { status?: number }) => e);
      expect((err as { status: number }).status).to.equal(404);
    });

    it('refuses every link of a closed request, and of a deleted one', async () => {
      const beta = (await t.db('company_contacts').where('company_id', fx.companies.beta.id).first()).id;
      const { token } = await linkFor(ctx, betaReport, beta);
      expect(await refusal(token)).to.equal('accepted');
      await closeRequest(ctx, request);
      expect(await refusal(token)).to.equal('closed');
      await deleteRequest(ctx, request);
      expect(await refusal(token)).to.equal('unknown');
    });
  });
}
