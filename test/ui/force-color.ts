// Imported first by the tests that assert colour codes. Ink's chalk decides its colour level when
// it is imported, so colour is forced before that and put back after the file's tests.
import { afterAll } from 'vitest';

const before = process.env['FORCE_COLOR'];
process.env['FORCE_COLOR'] = '1';
afterAll(() => {
  if (before === undefined) delete process.env['FORCE_COLOR'];
  else process.env['FORCE_COLOR'] = before;
});
