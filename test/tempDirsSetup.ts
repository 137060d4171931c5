import { afterAll } from 'vitest';
import { recordTempDirs, removeTempDirs } from './tempDirs.js';

// Setup file of the unit projects (vitest.config.ts). Vitest runs it before every test file, also
// where files share their worker's modules (isolate: false), so each file gets this hook: the
// folders it made with tempDir() go when it ends. A hook registered by a shared helper module
// instead runs only in the first file that imports it (the module is not run again).
recordTempDirs();
afterAll(removeTempDirs);
