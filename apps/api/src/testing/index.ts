export { startTestServer, type TestServer } from './test-server.js';
