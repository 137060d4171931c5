// A reader that stops early (`agent -p … | head -1`) closes the pipe. By default the program
// then ends quietly (cli.ts); a run that is writing a session registers a handler instead, so
// it can end its turn and mark the prompt that got no reply rather than die mid-turn. The
// handler is the run's own (its world's slot).
import { slot } from './runtime/world.js';

const HANDLER = Symbol('closedStdout');
const state = (): { handler: (() => void) | undefined } => slot(HANDLER, () => ({ handler: undefined }));

/** Sets (or, with undefined, clears) what a closed stdout does instead of exiting. */
export function onClosedStdout(h: (() => void) | undefined): void {
  state().handler = h;
}

/** Runs the registered handler once; false when none is set (the caller exits). */
export function handleClosedStdout(): boolean {
  const s = state();
  const h = s.handler;
  if (!h) return false;
  s.handler = undefined;
  h();
  return true;
}
