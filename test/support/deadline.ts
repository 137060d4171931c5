import { expect } from 'vitest';

// Waiting for something that should happen soon (a cancellation, a timeout, a state) must fail
// fast with an assertion that names it when it does not happen, never by the test's own time-out.

/** Waits until `cond` holds; an assertion naming `what` fails after `ms`. */
export async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(cond(), `waited ${ms} ms for ${what}`).toBe(true);
}

/** The promise's value, when it settles within `ms`; else an assertion naming `what` fails. */
export async function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = Symbol('late');
  const r = await Promise.race([p, new Promise<typeof late>((res) => (timer = setTimeout(() => res(late), ms)))]).finally(() => clearTimeout(timer));
  expect(r === late ? `not within ${ms} ms` : 'settled', `${what}`).toBe('settled');
  return r as T;
}
