/**
 * Tracing is on when an OTLP endpoint is set, as the OpenTelemetry specification names it, and
 * the SDK is not disabled. Read once at start-up; the SDK reads the other standard variables
 * itself (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_BSP_*…).
 */
export const tracingRequested = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
  env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true' &&
  env.OTEL_TRACES_EXPORTER?.toLowerCase() !== 'none';
