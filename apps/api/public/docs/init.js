/* global SwaggerUIBundle */
// Renders /v1/openapi.json. "Try it out" should reach the server that serves this page, so it is
// offered first; the document's own servers (production, staging) follow.
(async () => {
  const response = await fetch('/v1/openapi.json');
  const spec = await response.json();
  // A relative URL: the address this page was loaded from.
  spec.servers = [{ url: '/v1', description: 'This server' }, ...(spec.servers ?? [])];
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The key entered under "Authorize" lives in this page only, gone when it is closed or
    // reloaded: kept in localStorage, it would outlive the session for any script of this origin.
    persistAuthorization: false,
    displayRequestDuration: true,
    // The default sends the document to an online validator; this page makes no outside request.
    validatorUrl: null,
  });
})();
