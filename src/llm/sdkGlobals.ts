// What the two SDKs (@anthropic-ai/sdk, openai) see as the globals Headers, FormData, Response
// and Request: the build (scripts/build.ts, sdkGlobals) imports these into each SDK file that
// names one. In Node those globals are undici's, loaded on first touch (~20 ms of JavaScript to
// compile on every request's first use, ~100 ms on a loaded machine), and the SDKs touch two of
// them on every request without needing undici: `new Headers()` to merge a request's headers,
// `body instanceof FormData` to tell an upload from JSON. Here Headers is httpHeaders.ts's (the
// fetch both SDKs are given reads any headers it is handed), and the others are undici's, reached
// only when really used: `new FormData()` makes undici's, and `x instanceof FormData` asks
// undici only for an object that says it is one (Symbol.toStringTag), never for a plain object.
import { HttpHeaders } from './httpHeaders.js';

type Constructor = new (...args: unknown[]) => object;

const real = (name: string): Constructor => (globalThis as unknown as Record<string, Constructor>)[name]!;

/** Whether `v` is an instance of the global `name`, without loading it for what cannot be one. */
function isReal(v: unknown, name: string): boolean {
  return typeof v === 'object' && v !== null && (v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === name && v instanceof real(name);
}

/** The SDKs' Headers: httpHeaders.ts's, and a real Headers (a caller's) counts as one too. */
export class Headers extends HttpHeaders {
  static override [Symbol.hasInstance](v: unknown): boolean {
    return v instanceof HttpHeaders || isReal(v, 'Headers');
  }
}

/** A stand-in for the global `name`: constructing it makes the real one, `instanceof` asks the real one only for a candidate. */
function lazyGlobal(name: string): Constructor {
  const target = Object.defineProperty(class {}, Symbol.hasInstance, { value: (v: unknown) => isReal(v, name) });
  return new Proxy(target, { construct: (_t, args: unknown[]) => Reflect.construct(real(name), args) }) as Constructor;
}

export const FormData = lazyGlobal('FormData');
export const Response = lazyGlobal('Response');
export const Request = lazyGlobal('Request');
