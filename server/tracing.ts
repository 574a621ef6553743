import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP): HTTP, Express, knex and pg
 * spans. Started before the application is imported, so the instrumentations see those modules load.
 * Only the trace packages are used (not the whole Node SDK, with its metrics, logs and gRPC exporters).
 */
export function startTracing(): { shutdown(): Promise<void> } {
  // ES module imports are instrumented through import-in-the-middle's loader hook, limited to the
  // instrumented packages: hooking every module slows start-up several times over.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['express', 'knex', 'pg', 'http', 'node:http'] },
  });
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'portfolio-data-service' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new KnexInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  return provider;
}
