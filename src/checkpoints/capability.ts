// The working tree's checkpoints as a capability: each top-level session notes every turn's start
// (turnBoundary), snapshots the project before the turn's first call that may change files
// (beforeChange) and after such a turn, and lends the session its checkpoints for /rewind; a
// sub-agent's session takes none (what it changes belongs to its parent's turn, which the
// parent's boundary after the turn holds). Its saved state names the session whose records it
// continues, so a --fork starts from the checkpoints of the session it copied.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { type CheckpointSettings, SessionCheckpoints } from './sessionCheckpoints.js';

export function checkpointsCapability(cwd: string, dataDir: string, settings: CheckpointSettings, eager = false): Capability {
  return {
    name: 'checkpoints',
    open: (host) => {
      if (host.parent) return {};
      const cp = new SessionCheckpoints(host.sessionId, cwd, dataDir, settings, (text) => host.turn.notice('warning', text));
      return {
        hooks: {
          turnBoundary: (edge, turnId) => (edge === 'before' ? cp.turnStarted(turnId, eager) : cp.turnEnded(turnId)),
          beforeChange: () => cp.changing(),
        },
        checkpoints: cp,
        close: () => cp.close(),
        state: {
          key: 'checkpoints',
          restore: (saved) => {
            const from = (saved as { session?: unknown } | undefined)?.session;
            if (typeof from === 'string') cp.adopt(from);
          },
          save: () => ({ session: host.sessionId }),
        },
      };
    },
  };
}

/**
 * The project before each turn's first change and after the turn, for /rewind (a read-only
 * database keeps no session to tie them to). With the person's hooks configured every turn is
 * snapshotted at its start: a hook's command may change files around any call and at the turn's end.
 */
export const checkpoints: CapabilityFactory = (ctx) =>
  ctx.config.checkpoints.enabled && !ctx.readOnly
    ? checkpointsCapability(ctx.config.cwd, ctx.dataDir, ctx.config.checkpoints, (ctx.config.hookSources?.length ?? 0) > 0)
    : undefined;
