export { ContractViolation, assertMatchesContract, contractFetch } from './contract-fetch.js';
export { createContractChecker } from './contract.js';
export { TEST_MOUNT, startTestServer, type TestServer } from './test-server.js';
export { TEST_ENGINE, createTestStorage, type TestStorage } from './test-storage.js';
