import { describe, expect, it } from 'vitest';
import { readConfig } from './config.js';

const endpoint = 'http://127.0.0.1:4318';

describe('tracing, as the OpenTelemetry variables ask for it', () => {
  it('is on with either OTLP endpoint variable', () => {
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).tracing).toBe(true);
    expect(readConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }).tracing).toBe(true);
  });

  it('stays off when the SDK is disabled or its traces exporter is none, whatever the case', () => {
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBe(false);
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'None' }).tracing).toBe(false);
    expect(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBe(true);
  });
});
