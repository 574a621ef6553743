import { definePrompt, steps } from './define.ts';

export const chaseLateInformationRequests = definePrompt({
  name: 'chase_late_information_requests',
  title: 'Chase late information requests',
  description:
    'Find the companies that are late with an information request, draft a short reminder to each, and send the reminders when asked.',
  arguments: [
    {
      name: 'information_request_id',
      description:
        'The request to chase (id from list_information_requests); default: the latest sent one past its due date.',
    },
  ],
  text: ({ information_request_id }) =>
    'Find the portfolio companies that are late with their information request and draft reminders.\n\n' +
    'Call the tools in this order:\n' +
    steps([
      information_request_id
        ? `list_information_requests, and find request ${information_request_id} for its name, due date and counters.`
        : 'list_information_requests with status sent: take the latest request whose due_date has passed.',
      'list_information_reports with information_request_id set to that request and submitted false: each ' +
        'report row has company_name, status, is_late and the documents and metrics completed of those ' +
        'requested (which ones: response_format detailed); read every page (has_more) so no company is skipped.',
      "list_companies with ids set to the late companies: each one's investment lead (investment_lead_name, " +
        'investment_lead_email).',
      'list_company_contacts for each late company: who the reminder goes to (none: say so).',
    ]) +
    '\n\nThen write: a table of the late companies (company, status, days late, what is missing, lead, ' +
    'contacts), and for each one a reminder of at most five lines addressed from its lead, naming the ' +
    'request, its due date and exactly the documents and metrics still missing. These are drafts: send ' +
    'nothing unless the user asks. When they do, one call of remind_information_request with the ' +
    "request's information_request_id and the late companies' company_ids e-mails each contact a reminder " +
    'with a fresh link (it is a write tool, listed when write tools are on).',
});
