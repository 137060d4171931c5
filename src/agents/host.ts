// What the Task tool asks of the session that runs it: the agents in force and a way to run
// one child to its end. The session layer implements it (session/children.ts).
import type { AgentCatalog, AgentDefinition } from './agents.js';
import type { ChildState } from './childState.js';
import type { ToolOutput } from '../tools/types.js';

export interface ChildRequest {
  agent: AgentDefinition;
  description: string;
  prompt: string;
  /** The Task call's id in the parent. */
  toolUseId: string;
  /** The background commands it leaves running are handed to the parent when it ends (Task's keep_background), not stopped. */
  keepBackground?: boolean;
}

/** How a child ended: its report (the final message's text), or why it failed. */
export type ChildOutcome =
  | { ok: true; report: string; state: ChildState }
  | { ok: false; reason: 'provider' | 'limit' | 'cancelled' | 'internal'; message: string; partial: string; state: ChildState };

export interface SubagentHost {
  readonly catalog: AgentCatalog;
  readonly reportChars: number;
  /** Runs one child to its end (waiting for a free slot first); never rejects: a failure is an outcome. */
  run(req: ChildRequest, signal: AbortSignal, onUpdate: (state: ChildState) => void): Promise<ChildOutcome>;
  /** Runs one child to its end, its updates unfollowed, and gives what the model reads of it (the Task tool's result: taskTool.ts's resultOf): a forked skill's result. */
  report(req: ChildRequest, signal: AbortSignal): Promise<ToolOutput>;
}
