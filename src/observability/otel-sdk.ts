import type { TracerProvider } from '@opentelemetry/api'

/**
 * Whether the operator asked for traces: the `serve --otel` flag or config `otel`, or the standard
 * OpenTelemetry variables (an OTLP endpoint, or OTEL_TRACES_EXPORTER other than `none`).
 * OTEL_SDK_DISABLED=true wins over everything, as the OpenTelemetry specification says.
 */
export const tracingRequested = (env: NodeJS.ProcessEnv, asked = false): boolean => {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  if (asked) return true
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase()
  if (exporter !== undefined && exporter !== '') return exporter !== 'none'
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

export interface TracingSdk {
  tracerProvider: TracerProvider
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>
}

/**
 * Starts the OpenTelemetry SDK: a Node tracer provider (AsyncLocalStorage context, W3C trace
 * context and baggage propagation) exporting by OTLP/HTTP, or to the console when
 * OTEL_TRACES_EXPORTER=console. The SDK is imported here and only here, dynamically: a server
 * with tracing off never loads it. The exporter reads its endpoint, headers and timeout from the
 * standard OTEL_EXPORTER_OTLP_* variables; the service name from OTEL_SERVICE_NAME (default
 * `switchboard`).
 */
export const startTracingSdk = async (env: NodeJS.ProcessEnv): Promise<TracingSdk> => {
  const [{ NodeTracerProvider }, { BatchSpanProcessor, ConsoleSpanExporter }, resources, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ])
  const kinds = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((k) => k.trim().toLowerCase())
  const exporters = []
  for (const kind of kinds) {
    if (kind === 'console') exporters.push(new ConsoleSpanExporter())
    else if (kind === 'otlp' || kind === '') {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http')
      exporters.push(new OTLPTraceExporter())
    } else if (kind !== 'none')
      throw new Error(`OTEL_TRACES_EXPORTER: unsupported exporter "${kind}" (otlp, console, none)`)
  }
  const provider = new NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'switchboard' }),
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
  })
  provider.register({
    propagator: new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  })
  return { tracerProvider: provider, shutdown: () => provider.shutdown() }
}
