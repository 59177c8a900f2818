export { type Finished, collect, waitForOutput } from './child-output.js';
export { ContractViolation, assertMatchesContract, contractFetch } from './contract-fetch.js';
export { createContractChecker } from './contract.js';
export { it, test } from './fixtures.js';
export { portNobodyHolds } from './free-port.js';
export { nextPageLink } from './next-page-link.js';
export { type ProcessInfo, descendantsOf, isRunning } from './process-tree.js';
export { TEST_MOUNT, startTestServer, type TestServer } from './test-server.js';
export { TEST_ENGINE, createTestStorage, type TestStorage } from './test-storage.js';
