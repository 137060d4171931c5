import { describe, expect, it } from 'vitest';
import { redact, redactSecrets, registerSecret } from '../src/log.js';
import { secretForms } from '../src/secretForms.js';

describe('secret forms and key shapes', () => {
  const key = 'zq-custom-secret-value-0123456789-abcdefghijklmnop';
  registerSecret(key);

  it('removes a registered value reversed, base64 (any alignment, wrapped or not) and hex', () => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const samples = [
      key,
      [...key].reverse().join(''),
      b64(`${key}\n`),
      b64(`ab${key}cd`),
      b64(`a${key}`),
      b64(`${key}\n`).replace(/(.{76})/g, '$1\n'),
      Buffer.from(key).toString('hex'),
      encodeURIComponent(key),
    ];
    for (const s of samples) {
      const out = redactSecrets(`before ${s} after`);
      expect(out, s).toContain('[redacted]');
      expect(out.includes(key.slice(10, 30)), s).toBe(false);
    }
    for (const f of secretForms('shortkey')) expect(f.length).toBeGreaterThanOrEqual(12);
  });

  it('catches realistic keys of both providers by shape, registered or not', () => {
    const shapes = [
      `sk-ant-api03-${'a1B2_c3-D4'.repeat(9)}AA`,
      `sk-ant-admin01-${'x'.repeat(40)}`,
      `sk-proj-${'Ab1_Cd2-'.repeat(20)}`,
      `sk-svcacct-${'Z9'.repeat(30)}`,
      `sk-${'T3BlbkFJ'.repeat(6)}`,
    ];
    for (const k of shapes) {
      expect(redactSecrets(`key: ${k}.`)).toBe('key: [redacted].');
      expect(redactSecrets([...k].reverse().join(''))).toBe('[redacted]');
      expect(redact(Buffer.from(k).toString('base64'))).not.toContain(Buffer.from(k).toString('base64').slice(0, 24));
    }
  });

  it('leaves ordinary text alone', () => {
    const text = 'the risk-management-framework and task-force-assignments, base64 is aGVsbG8=, sk-learn is short';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('reversed key shapes', () => {
  const key = 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5qRs8t';
  const reversed = [...key].reverse().join('');

  it('redacts an unregistered key written backwards, and nothing shorter or glued to more key characters', () => {
    expect(redactSecrets(`token: ${reversed} end`)).toBe('token: [redacted] end');
    expect(redactSecrets(`a ${reversed}, b ${reversed}`)).toBe('a [redacted], b [redacted]');
    expect(redactSecrets('short-ks and abcdefghijklmnop-ksX')).toBe('short-ks and abcdefghijklmnop-ksX');
  });

  it('redacts a 10 MB line of key characters without overflowing (a backtracking pattern threw RangeError)', () => {
    const line = 'x'.repeat(10 * 1024 * 1024);
    expect(redactSecrets(line)).toBe(line);
    expect(redactSecrets(`${line}-ks`)).toBe('[redacted]');
  });
});
