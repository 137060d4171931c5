import { afterEach, beforeEach } from 'vitest';
import { noteTestRunning } from './regime.js';

// Runs before each e2e file (a setup file of both e2e projects): its hooks tell regime.ts when a
// test of the file runs, around the file's own hooks.
beforeEach(() => noteTestRunning(true));
afterEach(() => noteTestRunning(false));
