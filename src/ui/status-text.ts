// The one-line texts the live region shows for a retry and for a provider that has gone quiet.
import type { ProviderErrorKind } from '../llm/errors.js';
import type { Event } from '../protocol/events.js';
import { formatElapsed } from './format.js';

export const RETRY_LABEL: Partial<Record<ProviderErrorKind, string>> = {
  rate_limit: 'Rate limited',
  overloaded: 'Overloaded',
  server: 'Server error',
  connection: 'Connection failed',
  stream_cut: 'Response stream cut off',
};

export const retryText = (ev: Extract<Event, { type: 'retry' }>): string =>
  `${RETRY_LABEL[ev.kind] ?? 'Request failed'} — retrying in ${formatElapsed(ev.delayMs + 999)} (${ev.attempt}/${ev.maxAttempts})`;

/** "No response yet, 30 s" before the reply begins, "No data for 30 s" once it went silent, "Cannot connect (…)" while the provider cannot be reached. */
export const waitingText = (ev: Extract<Event, { type: 'waiting' }>): string =>
  ev.cannotConnect !== undefined
    ? `Cannot connect (${ev.cannotConnect}), ${ev.seconds} s${ev.attempt > 1 ? ` (attempt ${ev.attempt})` : ''}`
    : `${ev.stalled ? 'No data for' : 'No response yet,'} ${ev.seconds} s${ev.attempt > 1 ? ` (attempt ${ev.attempt})` : ''}`;
