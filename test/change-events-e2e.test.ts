import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { waitFor } from './helpers/processes.ts';
import { api, startTestServer } from './helpers/server.ts';

// Every piece of the change path at once, over the public API only: a write commits its event, the
// feed lists it, the dispatcher signs and delivers it, and the alert evaluator turns metric writes
// into alert events that travel the same way.

interface Delivered {
  headers: IncomingHttpHeaders;
  body: string;
}

interface FeedEvent {
  id: string;
  type: string;
  company_id: string | null;
  data: Record<string, unknown>;
}

/** A loopback HTTP receiver that answers 204 and keeps every request. */
async function receiver() {
  const received: Delivered[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ENV = {
  WEBHOOK_DELIVERY: 'on',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_POLL_INTERVAL_SECONDS: '0.05',
  WEBHOOK_RETRY_BASE_SECONDS: '0.01',
  WEBHOOK_TIMEOUT_SECONDS: '2',
  ALERTS: 'on',
  ALERTS_INTERVAL_SECONDS: '0.1',
};

/** The last day of the month `back` months before the current one, YYYY-MM-DD. */
function monthEnd(back: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 0)).toISOString().slice(0, 10);
}

for (const dialect of dialects) {
  describe(`change events reach webhooks and alerts end to end (${dialect.name}) @db`, function () {
    this.timeout(60000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let rx: Awaited<ReturnType<typeof receiver>>;
    let companyId: string;
    let secret: string;
    let cashId: string;
    let ruleId: string;

    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await api(server.url, path, { token: fx.admin.rest, method, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
      return res.body;
    };

    /** The company's events in the feed, oldest first, following next_cursor to the end. */
    async function feed(type: string): Promise<FeedEvent[]> {
      const seen: FeedEvent[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await call(
          'GET',
          `/v1/events/?types=${type}&page_size=100${after ? `&after=${after}` : ''}`,
        );
        seen.push(...(page.results as FeedEvent[]).filter((e) => e.company_id === companyId));
        if (!page.has_more) return seen;
        after = page.next_cursor;
      }
    }

    /** The verified deliveries of events of `type`; a delivery whose signature fails throws. */
    function delivered(type: string) {
      const hook = new Webhook(secret);
      return rx.received
        .map((r) => ({
          id: r.headers['webhook-id'] as string,
          payload: hook.verify(r.body, r.headers as Record<string, string>) as {
            type: string;
            data: FeedEvent;
          },
        }))
        .filter((d) => d.payload.type === type);
    }

    const openAlerts = async () =>
      (await call('GET', `/v1/alerts/?rule_id=${ruleId}`)).results as { company_id: string; value: string }[];

    const setCash = (value: string) => call('PATCH', `/v1/metrics/${cashId}/`, { value });

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      rx = await receiver();
      server = await startTestServer(t.db, { env: ENV });
      companyId = (await call('POST', '/v1/companies/', { name: 'Runway Labs' }, 201)).id;
      const endpoint = await call(
        'POST',
        '/v1/webhooks/',
        { url: rx.url, description: 'end to end', company_ids: [companyId] },
        201,
      );
      secret = endpoint.secret;
    });

    after(async () => {
      await server?.close();
      await rx?.close();
      await t?.drop();
    });

    it('a POST /v1/metrics/ write arrives signed as metric.created, with the id the feed shows', async () => {
      const point = (category: string, date: string, value: string, cadence = 'month') => ({
        company_id: companyId,
        category,
        metric_cadence: cadence,
        date,
        value,
        currency: 'USD',
      });
      // A net burn of 100,000 a month and 2,000,000 in the bank: 20 months of runway.
      const written = await call(
        'POST',
        '/v1/metrics/',
        [
          point('net_burn', monthEnd(3), '100000'),
          point('net_burn', monthEnd(2), '100000'),
          point('net_burn', monthEnd(1), '100000'),
          point('cash_in_bank', monthEnd(1), '2000000', 'point_in_time'),
        ],
        201,
      );
      cashId = written[3].id;

      const events = await feed('metric.created');
      expect(events.map((e) => e.data.category).sort()).to.deep.equal(['cash_in_bank', 'net_burn']);
      const deliveries = await waitFor('both metric.created deliveries', () => {
        const d = delivered('metric.created');
        return d.length === 2 ? d : undefined;
      });
      for (const event of events) {
        const delivery = deliveries.find((d) => d.id === event.id);
        expect(delivery, `delivery of event ${event.id}`).to.not.equal(undefined);
        expect(delivery!.payload.data).to.include({
          id: event.id,
          type: 'metric.created',
          company_id: companyId,
        });
        expect(delivery!.payload.data.data).to.deep.equal(event.data);
      }
    });

    it('a body changed in transit fails verification', () => {
      const original = rx.received[0]!;
      const hook = new Webhook(secret);
      expect(() =>
        hook.verify(
          original.body.replace(companyId, 'someone-else'),
          original.headers as Record<string, string>,
        ),
      ).to.throw();
    });

    it('a runway falling under 9 months raises exactly one alert.triggered, in the alerts, the feed and the webhook', async () => {
      const rule = await call(
        'POST',
        '/v1/alert-rules/',
        {
          name: 'Runway under 9 months',
          figure: 'runway_months',
          op: 'lt',
          value: 9,
          company_ids: [companyId],
        },
        201,
      );
      ruleId = rule.id;
      await setCash('600000'); // 6 months
      const open = await waitFor('the alert to open', async () => {
        const alerts = await openAlerts();
        return alerts.length > 0 ? alerts : undefined;
      });
      expect(open).to.have.length(1);
      expect(open[0]!.company_id).to.equal(companyId);
      expect(Number(open[0]!.value)).to.equal(6);

      // A further dip while the alert is open moves its value and raises nothing new.
      await setCash('500000'); // 5 months
      await waitFor('the open alert to follow the write', async () => {
        const alerts = await openAlerts();
        return alerts.length === 1 && Number(alerts[0]!.value) === 5 ? alerts : undefined;
      });
      const triggered = await feed('alert.triggered');
      expect(triggered).to.have.length(1);
      expect(triggered[0]!.data).to.include({
        rule_id: ruleId,
        company_id: companyId,
        figure: 'runway_months',
      });
      const sent = await waitFor('the alert.triggered delivery', () => {
        const d = delivered('alert.triggered');
        return d.length > 0 ? d : undefined;
      });
      expect(sent.map((d) => d.id)).to.deep.equal([triggered[0]!.id]);
    });

    it('a write that restores the runway raises alert.cleared and closes the alert', async () => {
      await setCash('2000000'); // 20 months
      await waitFor('the alert to clear', async () => ((await openAlerts()).length === 0 ? true : undefined));
      const cleared = await feed('alert.cleared');
      expect(cleared).to.have.length(1);
      expect(cleared[0]!.data).to.include({ rule_id: ruleId, company_id: companyId });
      const sent = await waitFor('the alert.cleared delivery', () => {
        const d = delivered('alert.cleared');
        return d.length > 0 ? d : undefined;
      });
      expect(sent.map((d) => d.id)).to.deep.equal([cleared[0]!.id]);
      expect(await feed('alert.triggered')).to.have.length(1);
      expect(delivered('alert.triggered')).to.have.length(1);
    });
  });
}
