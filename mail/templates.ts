// The messages of the collection loop, each in plain text and HTML. The HTML is self-contained (inline
// styles, no images, no remote assets) and every value in it is escaped. The founder link's anchor
// carries LINK_MARK, so that the outbox can find the link and scrub it once the message is sent.
import { html, SafeHtml } from '../core/html.ts';
import { LINK_MARK } from '../core/mail-link.ts';

/** What a request, reminder or confirmation says. */
export interface MailValues {
  firmName: string;
  companyName: string;
  contactName: string;
  requestName: string;
  /** The request's period as the firm named it ("quarter", "2026-Q1"). */
  period: string;
  /** YYYY-MM-DD. */
  dueDate: string;
  link: string;
  metrics: RequestedItem[];
  documents: RequestedItem[];
  reminderKind?: 'before' | 'on' | 'after';
  /** ISO 8601 date-time of the submission a confirmation confirms. */
  submittedAt?: string;
}

export interface RequestedItem {
  name: string;
  optional: boolean;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** 2026-04-15 → "15 April 2026": the same words for every reader, whatever the server's locale. */
export function longDate(isoDate: string): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return isoDate;
  return date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** A header line: a value with a line break in it must not start a header of its own. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const itemLine = (i: RequestedItem) => `- ${i.name}${i.optional ? ' (optional)' : ''}`;

/** The asked items as text: a heading per kind that has any. */
function itemsText(v: MailValues): string {
  const parts: string[] = [];
  if (v.metrics.length > 0) parts.push(['Figures:', ...v.metrics.map(itemLine)].join('\n'));
  if (v.documents.length > 0) parts.push(['Documents:', ...v.documents.map(itemLine)].join('\n'));
  return parts.join('\n\n');
}

function itemsHtml(v: MailValues): SafeHtml {
  const list = (title: string, items: RequestedItem[]) =>
    items.length === 0
      ? null
      : html`<h2 style="font-size:16px;margin:16px 0 4px">${title}</h2>
<ul style="margin:0;padding-left:20px">${items.map(
          (i) => html`<li>${i.name}${i.optional ? html` <em style="color:#555">(optional)</em>` : null}</li>`,
        )}</ul>`;
  return html`${list('Figures', v.metrics)}${list('Documents', v.documents)}`;
}

/** The facts every message states: the firm, the company, the request, its period and due date. */
function factsText(v: MailValues): string {
  return [
    `Firm: ${v.firmName}`,
    `Company: ${v.companyName}`,
    `Request: ${v.requestName}`,
    `Period: ${v.period}`,
    `Due: ${longDate(v.dueDate)}`,
  ].join('\n');
}

function factsHtml(v: MailValues): SafeHtml {
  const row = (k: string, value: string) =>
    html`<tr><th scope="row" style="text-align:left;padding:2px 12px 2px 0;font-weight:600">${k}</th><td>${value}</td></tr>`;
  return html`<table role="presentation" style="border-collapse:collapse;margin:12px 0">${[
    row('Firm', v.firmName),
    row('Company', v.companyName),
    row('Request', v.requestName),
    row('Period', v.period),
    row('Due', longDate(v.dueDate)),
  ]}</table>`;
}

/** The link as a button and, for a mail reader that hides buttons, as text to copy. */
function linkHtml(label: string, link: string): SafeHtml {
  return html`<p style="margin:20px 0"><a ${new SafeHtml(LINK_MARK)} href="${link}" style="background:#1f4e8c;color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">${label}</a></p>
<p style="font-size:13px;color:#555">Or copy this address into your browser: <span style="word-break:break-all">${link}</span></p>`;
}

function page(subject: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a;background:#ffffff">
<div style="max-width:600px;margin:0 auto">${body}</div>
</body>
</html>
`.value;
}

const PRIVATE_NOTE =
  'The link is private to you: no account is needed, and anyone who has it can answer for your company, so please do not forward it.';

function render(subject: string, text: string[], body: SafeHtml): RenderedMail {
  const s = oneLine(subject);
  return { subject: s, text: `${text.join('\n\n')}\n`, html: page(s, body) };
}

/** The first message: what the firm asks, by when, and the link to answer. */
export function requestMessage(v: MailValues): RenderedMail {
  const due = longDate(v.dueDate);
  const intro = `${v.firmName} asks ${v.companyName} for its ${v.requestName}, due by ${due}.`;
  return render(
    `${v.requestName} for ${v.firmName}: due ${due}`,
    [
      `Hello ${v.contactName},`,
      intro,
      factsText(v),
      itemsText(v),
      `Answer on this page (you can save a draft and come back before you submit):\n${v.link}`,
      PRIVATE_NOTE,
    ],
    html`<p>Hello ${v.contactName},</p><p>${intro}</p>${factsHtml(v)}${itemsHtml(v)}
<p>Answer on the page below; you can save a draft and come back before you submit.</p>
${linkHtml('Answer the request', v.link)}<p style="font-size:13px;color:#555">${PRIVATE_NOTE}</p>`,
  );
}

/** How a reminder opens, before, on or after the due date. */
function reminderWords(v: MailValues): { subject: string; lead: string } {
  const due = longDate(v.dueDate);
  const what = `${v.requestName} for ${v.firmName}`;
  if (v.reminderKind === 'on')
    return {
      subject: `Due today: ${what}`,
      lead: `${v.companyName}'s answers to ${what} are due today, ${due}.`,
    };
  if (v.reminderKind === 'after')
    return {
      subject: `Overdue: ${what} (was due ${due})`,
      lead: `${v.companyName}'s answers to ${what} were due on ${due} and have not been submitted yet.`,
    };
  return {
    subject: `Reminder: ${what} is due ${due}`,
    lead: `${v.companyName}'s answers to ${what} are due by ${due}.`,
  };
}

/** A reminder of a request not yet submitted, before, on or after its due date. */
export function reminderMessage(v: MailValues): RenderedMail {
  const { subject, lead } = reminderWords(v);
  const draft = 'Anything you saved as a draft is still there.';
  return render(
    subject,
    [
      `Hello ${v.contactName},`,
      lead,
      factsText(v),
      itemsText(v),
      `${draft} Answer here:\n${v.link}`,
      PRIVATE_NOTE,
    ],
    html`<p>Hello ${v.contactName},</p><p>${lead}</p>${factsHtml(v)}${itemsHtml(v)}<p>${draft}</p>
${linkHtml('Answer the request', v.link)}<p style="font-size:13px;color:#555">${PRIVATE_NOTE}</p>`,
  );
}

/** To the contact who submitted: what was received, and the link to change it. */
export function confirmationMessage(v: MailValues): RenderedMail {
  const when = v.submittedAt ? ` on ${longDate(v.submittedAt)} at ${v.submittedAt.slice(11, 16)} UTC` : '';
  const lead = `${v.firmName} received ${v.companyName}'s answers to ${v.requestName}${when}. Thank you.`;
  const change = 'To correct an answer, open the page again while the link is valid and submit again.';
  return render(
    `Received: ${v.requestName} for ${v.firmName}`,
    [`Hello ${v.contactName},`, lead, factsText(v), `${change}\n${v.link}`, PRIVATE_NOTE],
    html`<p>Hello ${v.contactName},</p><p>${lead}</p>${factsHtml(v)}<p>${change}</p>
${linkHtml('Review your answers', v.link)}<p style="font-size:13px;color:#555">${PRIVATE_NOTE}</p>`,
  );
}
