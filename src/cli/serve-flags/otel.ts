import type { Command } from 'commander'
import { firstSet, nameOf, onOff, type ServeFlagGroup } from './group.ts'

/**
 * OpenTelemetry traces (docs/observability.md "Traces"): on with `--otel`, config `otel: true`, or
 * the standard variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT). The SDK is loaded
 * only then.
 */
export const otelFlags: ServeFlagGroup = {
  register(command: Command) {
    command.option(
      '--otel [on|off]',
      'export OpenTelemetry traces (OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_TRACES_EXPORTER=console); also on when the OTEL_* variables ask for it (env SWITCHBOARD_OTEL; default off)',
    )
  },
  async resolve({ flags, env, file }) {
    const given = firstSet(flags.otel === true ? 'on' : flags.otel, env.SWITCHBOARD_OTEL, file.otel)
    const asked =
      given === undefined
        ? undefined
        : onOff(nameOf(flags.otel, '--otel', env.SWITCHBOARD_OTEL, 'SWITCHBOARD_OTEL', 'otel'), given)
    // Loaded here, not at the top: the check is cheap, the SDK is only imported when it is on.
    const { startTracingSdk, tracingRequested } = await import('../../observability/otel-sdk.ts')
    // An explicit off wins over the OTEL_* variables: the operator said so on this command line.
    if (asked === false || !tracingRequested(env, asked ?? false)) return {}
    const sdk = await startTracingSdk(env)
    return { tracing: { tracerProvider: sdk.tracerProvider, shutdown: sdk.shutdown } }
  },
}
