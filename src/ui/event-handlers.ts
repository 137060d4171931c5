// The UI's one handler table: every event type of the vocabulary (src/protocol/events.ts) with
// its handler, gathered from the families (events-*.ts, one file per family), so that a type
// left out of them fails to compile here. UiStore.handle runs an event through it.
import type { Event } from '../protocol/events.js';
import { compactionHandlers } from './events-compaction.js';
import { dispatch, type EventHandlers, type UiHost } from './events-host.js';
import { sessionHandlers } from './events-session.js';
import { toolHandlers } from './events-tools.js';
import { turnHandlers } from './events-turn.js';

/** Every event type's handler: leaving a type out of the families fails to compile. */
export const EVENT_HANDLERS: EventHandlers = { ...turnHandlers, ...toolHandlers, ...compactionHandlers, ...sessionHandlers };

/** Runs the handler of the event's type. */
export const handleEvent = (host: UiHost, ev: Event): void => dispatch(EVENT_HANDLERS, host, ev);
