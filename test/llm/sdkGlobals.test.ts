import { describe, expect, it } from 'vitest';
import { HttpHeaders } from '../../src/llm/httpHeaders.js';
import { FormData, Headers, Request, Response } from '../../src/llm/sdkGlobals.js';

// The globals the bundled SDKs see (scripts/build.ts, sdkGlobals): whether undici stays unloaded
// on a request is test/e2e/startup.test.ts's; here, that they answer as the real ones do.
describe('the SDKs’ stand-ins for Headers, FormData, Response and Request', () => {
  it('Headers is httpHeaders.ts’s, and a real Headers counts as one', () => {
    const h = new Headers({ 'X-A': '1' });
    h.append('x-a', '2');
    expect(h).toBeInstanceOf(HttpHeaders);
    expect(h.get('X-A')).toBe('1, 2');
    expect(h instanceof Headers).toBe(true);
    expect(new globalThis.Headers({ a: '1' }) instanceof Headers).toBe(true);
    expect(new HttpHeaders() instanceof Headers).toBe(true);
    expect({ get: () => null } instanceof Headers).toBe(false);
  });

  it('FormData, Response and Request make the real ones, and only those are instances', () => {
    const form = new FormData() as globalThis.FormData;
    expect(form).toBeInstanceOf(globalThis.FormData);
    expect(form instanceof FormData).toBe(true);
    expect(new Response('x') instanceof globalThis.Response).toBe(true);
    expect(new globalThis.Response('x') instanceof Response).toBe(true);
    expect(new Request('http://localhost/') instanceof Request).toBe(true);
    // a JSON body is not an upload: a plain object, or one that only says it is one
    expect({ a: 1 } instanceof FormData).toBe(false);
    expect({ [Symbol.toStringTag]: 'FormData' } instanceof FormData).toBe(false);
    expect(new globalThis.Response('x') instanceof FormData).toBe(false);
  });
});
