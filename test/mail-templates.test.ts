import { expect } from 'chai';
import { markedLink, SCRUBBED_LINK_NOTE, scrubLink } from '../core/mail-link.ts';
import {
  confirmationMessage,
  longDate,
  type MailValues,
  reminderMessage,
  requestMessage,
} from '../mail/templates.ts';

const LINK = 'https://pds.example.com/respond/frl_Abc-123_xyz';

function values(extra: Partial<MailValues> = {}): MailValues {
  return {
    firmName: 'Acorn Ventures',
    companyName: 'Acme',
    contactName: 'Ada Founder',
    requestName: 'Q1 2026 update',
    period: '2026-Q1',
    dueDate: '2026-04-15',
    link: LINK,
    metrics: [
      { name: 'Revenue', optional: false },
      { name: 'Cash in bank', optional: true },
    ],
    documents: [{ name: 'Board deck', optional: true }],
    ...extra,
  };
}

const all = (v: MailValues) => [
  requestMessage(v),
  reminderMessage({ ...v, reminderKind: 'before' }),
  reminderMessage({ ...v, reminderKind: 'on' }),
  reminderMessage({ ...v, reminderKind: 'after' }),
  confirmationMessage({ ...v, submittedAt: '2026-04-10T14:03:00.000Z' }),
];

describe('mail templates', () => {
  it('state the firm, company, request, period, due date and the link in both parts of every message', () => {
    for (const m of all(values())) {
      for (const part of [m.text, m.html]) {
        for (const fact of ['Acorn Ventures', 'Acme', 'Q1 2026 update', '2026-Q1', '15 April 2026', LINK])
          expect(part, m.subject).to.contain(fact);
      }
    }
  });

  it('list what is asked in a request and a reminder, marking the optional items', () => {
    for (const m of all(values()).slice(0, 4)) {
      expect(m.text)
        .to.contain('- Revenue\n')
        .and.contain('- Cash in bank (optional)')
        .and.contain('- Board deck (optional)');
      expect(m.html)
        .to.contain('<li>Revenue</li>')
        .and.contain('<li>Cash in bank <em style="color:#555">(optional)</em></li>');
    }
    const onlyDocuments = requestMessage(values({ metrics: [] }));
    expect(onlyDocuments.text).to.not.contain('Figures:');
    expect(onlyDocuments.text).to.contain('Documents:');
  });

  it('word a reminder before, on and after the due date', () => {
    expect(reminderMessage(values({ reminderKind: 'before' })).subject).to.equal(
      'Reminder: Q1 2026 update for Acorn Ventures is due 15 April 2026',
    );
    expect(reminderMessage(values({ reminderKind: 'on' })).subject).to.equal(
      'Due today: Q1 2026 update for Acorn Ventures',
    );
    const after = reminderMessage(values({ reminderKind: 'after' }));
    expect(after.subject).to.equal('Overdue: Q1 2026 update for Acorn Ventures (was due 15 April 2026)');
    expect(after.text).to.contain('have not been submitted yet');
  });

  it('confirm a submission with its time and the link to change it', () => {
    const m = confirmationMessage(values({ submittedAt: '2026-04-10T14:03:00.000Z' }));
    expect(m.subject).to.equal('Received: Q1 2026 update for Acorn Ventures');
    expect(m.text).to.contain('on 10 April 2026 at 14:03 UTC').and.contain(LINK);
  });

  it('escape every value in the HTML and keep header values on one line', () => {
    const hostile = values({
      firmName: 'Evil <script>alert(1)</script> & Co',
      companyName: '"><img src=x onerror=alert(1)>',
      requestName: 'Q1\r\nBcc: victim@example.com',
      metrics: [{ name: '<b>Revenue</b>', optional: false }],
    });
    for (const m of all(hostile)) {
      expect(m.html).to.not.contain('<script>').and.not.contain('<img').and.not.contain('<b>');
      expect(m.html).to.contain('Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
      expect(m.subject).to.not.match(/[\r\n]/);
    }
  });

  it('use no remote images, scripts, styles or fonts: the only address in the HTML is the link', () => {
    for (const m of all(values())) {
      expect(m.html).to.not.match(/<(img|script|link|iframe)\b/i);
      expect(m.html).to.not.match(/\bsrc=|url\(/i);
      const addresses = [...m.html.matchAll(/https?:\/\/[^"<\s]+/g)].map((a) => a[0]);
      expect(new Set(addresses)).to.deep.equal(new Set([LINK]));
    }
  });

  it('mark the founder link so that the outbox finds it and scrubs every copy of it', () => {
    const link = 'https://pds.example.com/respond/frl_a?b=1&c=2';
    for (const m of all(values({ link }))) {
      expect(markedLink(m.html)).to.equal(link);
      const kept = scrubLink(m, link);
      for (const part of [kept.subject, kept.text, kept.html]) expect(part).to.not.contain('frl_a');
      expect(kept.text).to.contain(SCRUBBED_LINK_NOTE);
    }
    expect(markedLink('<p>no link here</p>')).to.equal(undefined);
  });

  it('write due dates the same way whatever the server locale', () => {
    expect(longDate('2026-01-05')).to.equal('5 January 2026');
    expect(longDate('2026-12-31T23:59:59Z')).to.equal('31 December 2026');
    expect(longDate('someday')).to.equal('someday');
  });
});
