// The working tree's checkpoints as a capability: each top-level session snapshots the project
// at every turn boundary (turnBoundary) and lends the session its checkpoints for /rewind; a
// sub-agent's session takes none (what it changes belongs to its parent's turn, which the
// parent's boundary after the turn holds). Its saved state names the session whose records it
// continues, so a --fork starts from the checkpoints of the session it copied.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { type CheckpointSettings, SessionCheckpoints } from './sessionCheckpoints.js';

export function checkpointsCapability(cwd: string, dataDir: string, settings: CheckpointSettings): Capability {
  return {
    name: 'checkpoints',
    open: (host) => {
      if (host.parent) return {};
      const cp = new SessionCheckpoints(host.sessionId, cwd, dataDir, settings, (text) => host.turn.notice('warning', text));
      return {
        hooks: { turnBoundary: (edge, turnId) => cp.boundary(edge, turnId) },
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

/** The project at every turn boundary, for /rewind (a read-only database keeps no session to tie them to). */
export const checkpoints: CapabilityFactory = (ctx) =>
  ctx.config.checkpoints.enabled && !ctx.readOnly ? checkpointsCapability(ctx.config.cwd, ctx.dataDir, ctx.config.checkpoints) : undefined;
