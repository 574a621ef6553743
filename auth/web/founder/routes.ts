// The page a founder opens from a request mail: `GET /respond/<token>` shows the report's form and
// `POST` to the same address saves a draft or submits, through saveReport. No account and no session:
// the link is the credential, so the page is never cached, framed or sent on as a referrer.
import type { ServerResponse } from 'node:http';
import { type Request, type Response, Router } from 'express';
import type { Clock } from '../../../core/clock.ts';
import { Conflict, InvalidInput, ToolError } from '../../../core/errors.ts';
import { tokenHash } from '../../../core/secrets.ts';
import type { Repos } from '../../../db/repos/index.ts';
import {
  FOUNDER_PAGE_PATH,
  FounderLinkRefused,
  type FounderSession,
  founderContext,
  type LinkRefusal,
  verifyFounderLink,
} from '../../../services/founder-links.ts';
import { type FounderView, founderReportView } from '../../../services/founder-view.ts';
import {
  checkAnswers,
  type ReportAnswers,
  type SaveContext,
  saveReport,
} from '../../../services/information-reports.ts';
import { type Limiter, RateLimited } from '../../rate-limit.ts';
import {
  type FounderForm,
  founderCsrf,
  founderCsrfMatches,
  hasFounderCsrfCookie,
  readFounderForm,
  UnreadableForm,
} from './form.ts';
import {
  documentName,
  type FieldProblems,
  type FormState,
  idOf,
  messagePage,
  metricCurrencyName,
  metricValueName,
  reportPage,
  submittedPage,
  type Typed,
} from './page.ts';

export interface FounderPageOptions {
  repos: Repos;
  clock: Clock;
  /** FOUNDER_PAGE_PER_MINUTE, counted per link and per client address. */
  limiter: Limiter;
  publicUrl: () => string;
  documentStorageQuotaBytes: () => number;
}

// No scripts at all, styles only inline, forms only to this site, never framed.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function send(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  // The token is in the address: no page it links to may learn it.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(body);
}

// A link that never was, or names another report, is a 404; one that was good and is no more is gone.
const REFUSED: Record<LinkRefusal, { status: number; title: string; line: string }> = {
  unknown: {
    status: 404,
    title: 'This link does not work',
    line: 'Check that the whole link from the e-mail was copied, or ask the firm for a new one.',
  },
  other_report: {
    status: 404,
    title: 'This link is for another report',
    line: 'Open the page again from the link in your e-mail.',
  },
  revoked: {
    status: 410,
    title: 'This link was withdrawn',
    line: 'Ask the firm that sent it for a new one.',
  },
  closed: {
    status: 410,
    title: 'This request is closed',
    line: 'It takes no more answers. Contact the firm if something needs changing.',
  },
  expired: { status: 410, title: 'This link has expired', line: 'Ask the firm that sent it for a new one.' },
};

/** A post whose CSRF token is missing or not this browser's for this link. */
function expiredForm(res: Response): void {
  send(
    res,
    403,
    messagePage('The form has expired', ['Open the link from your e-mail again and resend it.']),
  );
}

function refusedPage(res: Response, reason: LinkRefusal): void {
  const r = REFUSED[reason];
  send(res, r.status, messagePage(r.title, [r.line]));
}

async function limit(
  options: FounderPageOptions,
  req: Request,
  res: Response,
  token: string,
): Promise<boolean> {
  try {
    await options.limiter.consume(`ip:${req.ip}`);
    // Counted by the token's hash: the token itself is never kept, in Redis or elsewhere.
    await options.limiter.consume(`link:${tokenHash(token.slice(0, 128))}`);
    return true;
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    res.setHeader('Retry-After', String(err.retryAfterSeconds));
    send(
      res,
      429,
      messagePage('Too many requests', [`Wait ${err.retryAfterSeconds} seconds, then reload this page.`]),
    );
    return false;
  }
}

/** The link of a request, or undefined once its refusal page is sent. */
async function open(options: FounderPageOptions, res: Response, token: string, reportId?: string) {
  try {
    return await verifyFounderLink(options, token, { reportId });
  } catch (err) {
    if (!(err instanceof FounderLinkRefused)) throw err;
    refusedPage(res, err.reason);
    return undefined;
  }
}

/** The answers a form carries: only the items it has fields for, so an item left out keeps its value. */
function answersOf(view: FounderView, form: FounderForm): ReportAnswers {
  const metrics = view.metrics.flatMap((m) => {
    const value = form.fields.get(metricValueName(m.item_id));
    if (value === undefined) return [];
    const currency =
      m.currency === null ? undefined : form.fields.get(metricCurrencyName(m.item_id)) || undefined;
    return [{ item_id: m.item_id, value, ...(currency ? { currency } : {}) }];
  });
  const documents = view.documents.flatMap((d) => {
    const file = form.files.get(documentName(d.item_id));
    return file ? [{ item_id: d.item_id, file }] : [];
  });
  return { metrics, documents };
}

/** An error's fields as the inputs they belong to (`metrics[<id>].value` is the value's input). */
function problemsOf(errors: { field: string; message: string }[], files: Map<string, string>): FieldProblems {
  const byInput = new Map<string, string>();
  const general: string[] = [];
  for (const [name, message] of files) byInput.set(idOf(name), message);
  for (const e of errors) {
    const m = /^(metrics|documents)\[([A-Za-z0-9]+)\](?:\.(value|currency|file))?$/.exec(e.field);
    if (!m) general.push(e.message);
    else if (m[1] === 'documents') byInput.set(idOf(documentName(m[2]!)), e.message);
    else if (m[3] === 'currency') byInput.set(idOf(metricCurrencyName(m[2]!)), e.message);
    else byInput.set(idOf(metricValueName(m[2]!)), e.message);
  }
  return { byInput, general };
}

function typedOf(form: FounderForm): Typed {
  return Object.fromEntries(form.fields);
}

export function founderPageRouter(options: FounderPageOptions): Router {
  const router = Router();
  const path = `${FOUNDER_PAGE_PATH}:token`;
  const secure = () => options.publicUrl().startsWith('https:');

  router.get(path, async (req, res) => {
    const token = String(req.params.token);
    if (!(await limit(options, req, res, token))) return;
    const session = await open(options, res, token);
    if (!session) return;
    const view = await founderReportView(options, session);
    const csrfToken = founderCsrf(req, res, session.link.token_hash, secure());
    send(res, 200, reportPage(view, { csrfToken, action: `${FOUNDER_PAGE_PATH}${token}` }));
  });

  router.post(path, async (req, res) => {
    const token = String(req.params.token);
    // A refused post is answered at once; what the client still sends is read and dropped.
    if (!(await limit(options, req, res, token))) return void req.resume();
    const session = await open(options, res, token);
    if (!session) return void req.resume();
    if (!hasFounderCsrfCookie(req, secure())) {
      req.resume();
      return expiredForm(res);
    }
    const view = await founderReportView(options, session);
    let form: FounderForm;
    try {
      const fields = 2 * view.metrics.length + 4;
      form = await readFounderForm(req, { fields, files: Math.max(1, view.documents.length) });
    } catch (err) {
      if (!(err instanceof UnreadableForm)) throw err;
      send(res, err.status, messagePage('The form could not be read', [err.message]));
      return;
    }
    if (!founderCsrfMatches(req, session.link.token_hash, form.fields.get('csrf_token'), secure())) {
      send(
        res,
        403,
        messagePage('The form has expired', ['Open the link from your e-mail again and resend it.']),
      );
      return;
    }
    const reportId = form.fields.get('report_id');
    if (reportId !== undefined && reportId !== session.link.report_id) {
      refusedPage(res, 'other_report');
      return;
    }
    await save(options, { req, res, token, session, view, form }, form.fields.get('action') === 'submit');
  });
  return router;
}

interface Posted {
  req: Request;
  res: Response;
  token: string;
  session: FounderSession;
  view: FounderView;
  form: FounderForm;
}

function saveContext(options: FounderPageOptions, session: FounderSession): SaveContext {
  return {
    ...founderContext(options, session),
    documentStorageQuotaBytes: options.documentStorageQuotaBytes(),
    publicUrl: options.publicUrl(),
  };
}

/** Saves a posted form, or shows it again with every value typed and a message beside each bad field. */
async function save(options: FounderPageOptions, p: Posted, submit: boolean): Promise<void> {
  const ctx = saveContext(options, p.session);
  const answers = answersOf(p.view, p.form);
  const formState = (problems?: FieldProblems, notice?: string): FormState => ({
    csrfToken: p.form.fields.get('csrf_token')!,
    action: `${FOUNDER_PAGE_PATH}${p.token}`,
    typed: problems ? typedOf(p.form) : undefined,
    problems,
    notice,
  });
  try {
    // A refused file refuses the save; the values are checked too, so every problem shows at once.
    if (p.form.fileProblems.size > 0) {
      await checkAnswers(ctx, p.session, { metrics: answers.metrics });
      throw new InvalidInput('a file was refused', []);
    }
    const wasSubmitted = p.view.report.submitted_at !== null;
    const saved = await saveReport(ctx, p.session, answers, { submit });
    const view = await founderReportView(options, p.session);
    if (submit) {
      send(p.res, 200, submittedPage(view, { again: wasSubmitted, changed: saved.changed }));
      return;
    }
    const notice = `Draft saved. Nothing is sent to ${view.firm.name} until you submit.`;
    send(p.res, 200, reportPage(view, formState(undefined, notice)));
  } catch (err) {
    if (err instanceof FounderLinkRefused) return refusedPage(p.res, err.reason);
    if (err instanceof Conflict) {
      const problems = { byInput: new Map<string, string>(), general: [err.message] };
      send(p.res, 409, reportPage(p.view, formState(problems)));
      return;
    }
    if (!(err instanceof ToolError) || (err.errors.length === 0 && p.form.fileProblems.size === 0)) throw err;
    const problems = problemsOf(err.errors, p.form.fileProblems);
    send(p.res, 422, reportPage(p.view, formState(problems)));
  }
}
