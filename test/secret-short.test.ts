import { describe, expect, it } from 'vitest';
import { redact, redactSecrets, registerSecret } from '../src/log.js';

// The suite's other redaction tests use one long, key-shaped secret. A registered secret can be
// short and shaped like nothing (a database password in GITHUB_TOKEN-style passEnv, say): it
// must be redacted all the same, and its longer derived forms too.
describe('short registered secrets', () => {
  it('redacts a 20-character secret that has no key shape, with its reversed and base64 forms', () => {
    const secret = 'p4ss-w0rd-for-stagin';
    expect(redact(`x ${secret} y`)).toBe(`x ${secret} y`); // not key-shaped: only registration catches it
    registerSecret(secret);
    expect(redactSecrets(`x ${secret} y`)).toBe('x [redacted] y');
    expect(redact(`rev ${[...secret].reverse().join('')}`)).toBe('rev [redacted]');
    expect(redact(`b64 ${Buffer.from(secret).toString('base64')}`)).toBe('b64 [redacted]');
  });

  it('redacts a registered secret of 10 characters (its derived forms are too short to hunt for)', () => {
    const secret = 'Tr0ub4dor9';
    registerSecret(secret);
    expect(redactSecrets(`PGPASSWORD=${secret} psql`)).toBe('PGPASSWORD=[redacted] psql');
    expect(redact(`"${secret}"`)).toBe('"[redacted]"');
  });

  it('registers a secret of 8 characters or more; a shorter value is not hunted for (it would redact ordinary words)', () => {
    registerSecret('qz8Kv2Lm');
    registerSecret('qz7Kv2L');
    // mutation: `value.length <= 8` leaves the 8-character one in the text
    expect(redactSecrets('a qz8Kv2Lm b')).toBe('a [redacted] b');
    expect(redactSecrets('a qz7Kv2L b')).toBe('a qz7Kv2L b');
  });
});
