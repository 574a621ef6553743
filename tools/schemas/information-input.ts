import { z } from 'zod';
import { TIME_PERIODS } from '../../core/information.ts';

const isoDate = (description: string) => z.iso.date().describe(`${description} YYYY-MM-DD.`);

const RequestedMetricIn = z.object({
  category: z
    .string()
    .min(1)
    .max(255)
    .describe(
      'A standard category (revenue, cash_in_bank …) or a custom metric by name (get_metrics_options).',
    ),
  time_period: z
    .enum(TIME_PERIODS)
    .optional()
    .describe(
      'What the value covers: point_in_time for stocks (cash, ARR, headcount), else month, quarter or year. Default: point_in_time for stocks, the period length for flows.',
    ),
  optional: z.boolean().optional().describe('True: the company may leave it out. Default false.'),
  description: z.string().max(1000).optional().describe('A note shown beside the field.'),
});

const RequestedDocumentIn = z.object({
  name: z.string().min(1).max(255).describe('Document asked for, such as "Board deck".'),
  description: z.string().max(1000).optional().describe('What it should hold.'),
  optional: z.boolean().optional().describe('True: the company may leave it out. Default false.'),
});

/** The fields of an information request: create takes them, update changes them. */
export const requestFields = {
  name: z.string().min(1).max(255).describe('Request name, such as "Q3 2026 update".'),
  period: z.string().min(1).max(64).describe('Period label founders see, such as 2026-Q3.'),
  period_start_date: isoDate('First day of the period.'),
  period_end_date: isoDate('Last day of the period; submitted figures are dated at it.'),
  due_date: isoDate('When answers are due.'),
  message: z.string().max(5000).describe('A note to founders in the request e-mail.'),
  reminder_days: z
    .array(z.number().int().min(-90).max(90))
    .max(10)
    .describe(
      'Days from the due date when reminders go out (-7 before, 0 on it, 7 after). Default [-7, 0, 7].',
    ),
  company_ids: z
    .array(z.string().min(1))
    .max(1000)
    .describe('Companies asked (list_companies); each gets a report when the request is sent.'),
  metrics: z.array(RequestedMetricIn).max(100).describe('Metrics asked for, in order.'),
  documents: z.array(RequestedDocumentIn).max(50).describe('Documents asked for, in order.'),
};

export const requestId = z.string().min(1).describe('Information request id (list_information_requests).');
