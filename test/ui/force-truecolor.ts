// Imported first by tests that pin exact colours: Ink's chalk decides its colour level when it is
// imported, so truecolor (level 3, hex colours kept) is forced before that and put back after.
import { afterAll } from 'vitest';

const before = process.env['FORCE_COLOR'];
process.env['FORCE_COLOR'] = '3';
afterAll(() => {
  if (before === undefined) delete process.env['FORCE_COLOR'];
  else process.env['FORCE_COLOR'] = before;
});
