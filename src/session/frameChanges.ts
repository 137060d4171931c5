// The changes of the turn's frame (turnFrame.ts) that the compactor (compactor.ts) follows: a
// turn's start (a skill folder reached, the extra tools taken), /effort and /model. The engine for
// the new frame is made first (what can fail, fails before anything changes), then the frame
// changes, the engine takes over and the gauge is shown again.
import { withEffort, withModel, type Config } from '../config/config.js';
import type { Effort, Provider } from '../llm/provider.js';
import { otherProvider } from './compactionEngine.js';
import type { Compactor } from './compactor.js';
import type { SessionLog } from './sessionLog.js';
import type { TurnFrames } from './turnFrame.js';
import { fmtInt } from '../tools/format.js';

export interface FrameParts {
  frames: TurnFrames;
  compactor: Compactor;
  log: Pick<SessionLog, 'messages' | 'setModel'>;
  /** Creates a provider for another provider family (/model); `purpose` names who asked. */
  providerFor: ((config: Config, purpose?: string) => Provider) | undefined;
}

/** What the session asks of the frame: a turn's start, /effort, /model. */
export interface FrameChanges {
  startTurn(): Promise<void>;
  setEffort(effort: Effort): string;
  setModel(name: string): string;
}

export function frameChanges(p: FrameParts): FrameChanges {
  return { startTurn: () => startTurn(p), setEffort: (effort) => setEffort(p, effort), setModel: (name) => setModel(p, name) };
}

/** A turn starts: the frame is made for it; the gauge follows when its tools changed. */
async function startTurn(p: FrameParts): Promise<void> {
  p.compactor.turnStarts();
  if (await p.frames.startTurn(p.log.messages())) p.compactor.showUsage();
}

/** /effort: checked against the model like .agentrc's setting (a CommandError-worthy ConfigError when it cannot take it). */
function setEffort(p: FrameParts, effort: Effort): string {
  const { config: c, provider } = p.frames.current;
  if (c.provider !== 'anthropic') return `${c.model.name} takes no effort setting.`;
  const next = withEffort(c, effort);
  if (!next.thinking) return `${c.model.name} takes no effort setting.`;
  // the in-place summary sends the session's thinking too
  const engine = p.compactor.engineFor(next, provider);
  p.frames.configure(next);
  p.compactor.follow(engine);
  return `Effort ${effort} from the next turn (${c.model.name}). A change of thinking or effort starts a new cache prefix: the next request is written to the cache again.`;
}

/** Switches the model for the following turns (/model); returns what to tell the person. */
function setModel(p: FrameParts, name: string): string {
  const current = p.frames.current;
  const next = withModel(current.config, name);
  const { model, provider } = next;
  // everything that can fail (a missing key) before anything changes
  const nextProvider = provider === current.config.provider ? current.provider : otherProvider(p.providerFor, next, `/model ${model.name}`);
  const engine = p.compactor.engineFor(next, nextProvider);
  p.frames.switchModel(next, nextProvider);
  p.log.setModel(model.name, provider);
  p.compactor.follow(engine);
  return model.source === 'default'
    ? `Switched to ${model.name} (unknown model: assuming a ${fmtInt(model.contextWindow)}-token window; describe it under "models" in .agentrc).`
    : `Switched to ${model.name} (${provider}, ${fmtInt(model.contextWindow)}-token window).`;
}
