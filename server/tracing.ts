import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP): HTTP, Express, knex and pg
 * spans. Started before the application is imported, so the instrumentations see those modules load.
 */
export function startTracing(): { shutdown(): Promise<void> } {
  // ES module imports are instrumented through import-in-the-middle's loader hook, limited to the
  // instrumented packages: hooking every module slows start-up several times over.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['express', 'knex', 'pg', 'http', 'node:http'] },
  });
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'portfolio-data-service',
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new KnexInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}
