/**
 * An answer that is not the service's: not JSON, so from something else at that address (a proxy's
 * own error page, a web server, the wrong path). Its status still counts: a proxy's 429 or 503 is
 * retried as the service's would be.
 */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  readonly status: number;

  constructor(readonly response: Response) {
    const type = response.headers.get('content-type') ?? 'no Content-Type';
    super(
      `${response.url} answered ${String(response.status)} ${response.statusText} with ${type}, not the service's JSON: ` +
        "is the client's url the service's base address, and does what is in front of it pass /trpc on?",
    );
    this.status = response.status;
  }
}

const isJson = (response: Response) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');

/**
 * The tRPC links' fetch: an answer that is not JSON fails with what it was, where tRPC would fail
 * parsing it ("Unexpected token '<'") and lose its status.
 */
export const servicesAnswersOnly =
  (fetchOnce: typeof globalThis.fetch): typeof globalThis.fetch =>
  async (input, init) => {
    const response = await fetchOnce(input, init);
    if (isJson(response)) return response;
    await response.body?.cancel();
    throw new UnexpectedResponseError(response);
  };
