import type { Request, Response, Router } from 'express';
import type { ToolContext } from '../../../tools/context.ts';
import type { AnyTool } from '../../../tools/define.ts';
import { PermissionDenied } from '../../../tools/errors.ts';
import { closeInformationRequest } from '../../../tools/information/close-information-request.ts';
import { createInformationRequest } from '../../../tools/information/create-information-request.ts';
import { deleteInformationRequest } from '../../../tools/information/delete-information-request.ts';
import { getInformationRequest } from '../../../tools/information/get-information-request.ts';
import { listInformationReports } from '../../../tools/information/list-information-reports.ts';
import { listInformationRequests } from '../../../tools/information/list-information-requests.ts';
import { remindInformationRequest } from '../../../tools/information/remind-information-request.ts';
import type { InformationRequestDetail } from '../../../tools/information/request-detail.ts';
import { sendInformationRequest } from '../../../tools/information/send-information-request.ts';
import { updateInformationRequest } from '../../../tools/information/update-information-request.ts';
import { runTool } from '../../../tools/run.ts';
import { sendHtml } from '../respond.ts';
import type { WebSession } from '../sessions.ts';
import { type Form, nav, signedIn, type WebOptions } from '../signed-in.ts';
import { addContactRoutes } from './contacts.ts';
import { formProblem, mayEdit, refusalPage, run, visibleCompanies, webToolContext } from './context.ts';
import { addOutboxRoutes } from './outbox.ts';
import {
  EMPTY_FORM,
  inputName,
  type RequestFormValues,
  readRequestForm,
  requestInput,
} from './request-form.ts';
import { REQUESTS_PATH, requestFormPage, requestListPage, requestPage } from './request-pages.ts';

const notices: Record<string, string> = {
  created: 'The draft is saved. Check it, then send it.',
  changed: 'The draft is changed.',
  sent: 'The request is sent: each company has its report, and each contact a private link.',
  reminded: 'Reminders are on their way to the companies that have not answered.',
  closed: 'The request is closed: its links no longer work.',
  deleted: 'The draft is deleted.',
};

/** After a send or reminder: the companies no mail reached, for want of a contact. */
function withoutContacts(count: unknown): string | undefined {
  if (typeof count !== 'string' || !/^[1-9]\d{0,5}$/.test(count)) return undefined;
  const companies = count === '1' ? '1 company has' : `${count} companies have`;
  return `${companies} no contact, so no mail went to them: add one under Contacts, then remind.`;
}

/** Viewers read; a page that would change something is refused before its input is looked at. */
function refuseViewer(res: Response, session: WebSession): boolean {
  if (mayEdit(session)) return false;
  const denied = new PermissionDenied('changing information requests needs the editor or admin role');
  refusalPage(res, denied, REQUESTS_PATH);
  return true;
}

async function metricNames(ctx: ToolContext): Promise<string[]> {
  const categories = await ctx.repos.metrics.categories(ctx.principal.firm.id);
  return categories.filter((c) => !c.is_archived).map((c) => c.name);
}

/** The form of a stored request, as it would have been typed. */
function valuesOf(r: InformationRequestDetail): RequestFormValues {
  return {
    ...EMPTY_FORM,
    name: r.name,
    period: r.period,
    period_start_date: r.period_start_date,
    period_end_date: r.period_end_date,
    due_date: r.due_date,
    message: r.message,
    reminder_days: r.reminder_days.join(', '),
    company_ids: r.company_ids,
    metrics: r.requested_metrics.map((m) => ({
      category: m.name,
      time_period: m.time_period ?? '',
      optional: m.optional,
    })),
    documents: r.requested_documents.map((d) => ({
      name: d.name,
      description: d.description === d.name ? '' : d.description,
      optional: d.optional,
    })),
  };
}

interface FormState {
  values: RequestFormValues;
  requestId?: string;
  errors?: Map<string, string>;
  message?: string;
}

async function sendForm(
  res: Response,
  ctx: ToolContext,
  session: WebSession,
  status: number,
  state: FormState,
) {
  const earlier = state.requestId ? [] : (await run(listInformationRequests, ctx, { per_page: 100 })).results;
  const view = {
    nav: nav(session, 'requests'),
    requestId: state.requestId,
    values: state.values,
    companies: await visibleCompanies(ctx),
    metricNames: await metricNames(ctx),
    earlier: earlier.map((r) => ({ id: r.id, name: `${r.name} (${r.period})` })),
    form: { errors: state.errors ?? new Map<string, string>() },
    message: state.message,
  };
  sendHtml(res, status, requestFormPage(view, session.csrfToken));
}

/** Reads the posted form, runs create or update, and answers: to the request, or the form with its refusals. */
async function saveForm(options: WebOptions, req: Request, res: Response, session: WebSession, id?: string) {
  if (refuseViewer(res, session)) return;
  const ctx = await webToolContext(options, session);
  const values = readRequestForm(req.body);
  const again = (errors: Map<string, string>, message: string, status = 400) =>
    sendForm(res, ctx, session, status, { values, requestId: id, errors, message });
  const built = await requestInput(values, async () => (await visibleCompanies(ctx)).map((c) => c.id));
  if ('errors' in built) return again(built.errors, 'Check the fields marked below.');
  try {
    const saved = id
      ? await run(updateInformationRequest, ctx, { ...built.input, information_request_id: id })
      : await run(createInformationRequest, ctx, {
          ...built.input,
          copy_from: values.copy_from || undefined,
        });
    res.redirect(303, `${REQUESTS_PATH}/${saved.id}?notice=${id ? 'changed' : 'created'}`);
  } catch (err) {
    const problem = formProblem(err);
    if (problem.status !== 400) return refusalPage(res, err, REQUESTS_PATH);
    const errors = new Map([...problem.fields].map(([field, message]) => [inputName(field), message]));
    return again(errors, problem.message);
  }
}

async function showRequest(
  options: WebOptions,
  res: Response,
  session: WebSession,
  id: string,
  extra: { notice?: string; warning?: string; error?: string; status?: number } = {},
) {
  const ctx = await webToolContext(options, session);
  const request = await run(getInformationRequest, ctx, { information_request_id: id });
  const reports = await run(listInformationReports, ctx, { information_request_id: id, per_page: 100 });
  const listed = await ctx.repos.information.listReports(
    ctx.principal.scope,
    { requestId: id },
    { limit: 100, offset: 0 },
  );
  const remindedAt = new Map(listed.rows.map((r) => [r.id, r.reminded_at ?? null]));
  const view = {
    nav: nav(session, 'requests'),
    request,
    reports: reports.results,
    remindedAt,
    mayEdit: mayEdit(session),
  };
  sendHtml(
    res,
    extra.status ?? 200,
    requestPage({ ...view, notice: extra.notice, warning: extra.warning, error: extra.error }),
  );
}

const ACTIONS = {
  send: sendInformationRequest,
  remind: remindInformationRequest,
  close: closeInformationRequest,
  delete: deleteInformationRequest,
} as const;
const DONE: Record<keyof typeof ACTIONS, string> = {
  send: 'sent',
  remind: 'reminded',
  close: 'closed',
  delete: 'deleted',
};

function addActionRoutes(router: Router, options: WebOptions, form: Form): void {
  for (const verb of Object.keys(ACTIONS) as (keyof typeof ACTIONS)[]) {
    router.post(
      `${REQUESTS_PATH}/:id/${verb}`,
      form,
      signedIn(options.sessions, async (req, res, session) => {
        const id = String(req.params.id);
        const ctx = await webToolContext(options, session);
        let result: unknown;
        try {
          result = await runTool(ACTIONS[verb] as unknown as AnyTool, ctx, { information_request_id: id });
        } catch (err) {
          const problem = formProblem(err);
          if (problem.status === 403 || problem.status === 404) return refusalPage(res, err, REQUESTS_PATH);
          return showRequest(options, res, session, id, { error: problem.message, status: problem.status });
        }
        const to = verb === 'delete' ? REQUESTS_PATH : `${REQUESTS_PATH}/${id}`;
        const without = (result as { companies_without_contacts?: unknown[] }).companies_without_contacts;
        const query = new URLSearchParams({ notice: DONE[verb] });
        if (without?.length) query.set('without', String(without.length));
        res.redirect(303, `${to}?${query}`);
      }),
    );
  }
}

function addFormRoutes(router: Router, options: WebOptions, form: Form): void {
  const { sessions } = options;

  router.get(
    `${REQUESTS_PATH}/new`,
    signedIn(sessions, async (req, res, session) => {
      if (refuseViewer(res, session)) return;
      const ctx = await webToolContext(options, session);
      const copyFrom = typeof req.query.copy_from === 'string' ? req.query.copy_from : '';
      let values = EMPTY_FORM;
      if (copyFrom) {
        try {
          const source = await run(getInformationRequest, ctx, { information_request_id: copyFrom });
          const {
            name: _n,
            period: _p,
            period_start_date: _s,
            period_end_date: _e,
            due_date: _d,
            ...copied
          } = valuesOf(source);
          values = { ...EMPTY_FORM, ...copied, copy_from: source.id };
        } catch (err) {
          return refusalPage(res, err, `${REQUESTS_PATH}/new`);
        }
      }
      await sendForm(res, ctx, session, 200, { values });
    }),
  );
  router.post(
    REQUESTS_PATH,
    form,
    signedIn(sessions, (req, res, session) => saveForm(options, req, res, session)),
  );

  router.get(
    `${REQUESTS_PATH}/:id/edit`,
    signedIn(sessions, async (req, res, session) => {
      if (refuseViewer(res, session)) return;
      const ctx = await webToolContext(options, session);
      try {
        const r = await run(getInformationRequest, ctx, { information_request_id: String(req.params.id) });
        await sendForm(res, ctx, session, 200, { values: valuesOf(r), requestId: r.id });
      } catch (err) {
        refusalPage(res, err, REQUESTS_PATH);
      }
    }),
  );
  router.post(
    `${REQUESTS_PATH}/:id/edit`,
    form,
    signedIn(sessions, (req, res, session) => saveForm(options, req, res, session, String(req.params.id))),
  );
}

/** The information requests pages, the contacts page and the outbox of the signed-in application. */
export function addInformationRoutes(router: Router, options: WebOptions, form: Form): void {
  router.get(
    REQUESTS_PATH,
    signedIn(options.sessions, async (req, res, session) => {
      const ctx = await webToolContext(options, session);
      const listed = await run(listInformationRequests, ctx, { per_page: 100 });
      sendHtml(
        res,
        200,
        requestListPage({
          nav: nav(session, 'requests'),
          requests: listed.results,
          mayEdit: mayEdit(session),
          notice: notices[String(req.query.notice)],
        }),
      );
    }),
  );
  addFormRoutes(router, options, form);
  addActionRoutes(router, options, form);
  router.get(
    `${REQUESTS_PATH}/:id`,
    signedIn(options.sessions, async (req, res, session) => {
      try {
        await showRequest(options, res, session, String(req.params.id), {
          notice: notices[String(req.query.notice)],
          warning: withoutContacts(req.query.without),
        });
      } catch (err) {
        refusalPage(res, err, REQUESTS_PATH);
      }
    }),
  );
  addContactRoutes(router, options, form);
  addOutboxRoutes(router, options, form);
}
