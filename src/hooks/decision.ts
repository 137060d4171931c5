// What a hook's run means, read the way Claude Code reads its hooks: exit 0 with plain stdout
// is context (for the events that take context), exit 0 with a JSON object on stdout is a
// decision (`decision: "block"` + `reason`, `continue: false` + `stopReason`,
// `hookSpecificOutput.permissionDecision` / `permissionDecisionReason` / `additionalContext`,
// `systemMessage` for the person), exit 2 blocks with stderr as the reason, any other exit
// (or a timeout) is a failure that is reported and changes nothing.
import type { HookEventName } from '../config/schema.js';
import type { HookRun } from './run.js';

export interface HookVerdict {
  /** The hook blocks: the prompt, the tool call, the stop (then the model goes on with it). */
  block?: string;
  /** PreToolUse `permissionDecision: "allow"`: the call runs without asking. */
  allow?: boolean;
  /** Text for the model (context, a note). */
  context?: string;
  /** Text for the person (`systemMessage`). */
  message?: string;
  /** A failure to report (the hook is ignored). */
  failure?: string;
}

/** Events whose hooks' plain stdout becomes context for the model (or the summary instructions). */
const PLAIN_STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PreCompact']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

function parseJson(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function verdictOf(event: HookEventName, run: HookRun, label: string, timeoutMs: number): HookVerdict {
  if (run.spawnError) return { failure: `${label} could not start: ${run.spawnError}` };
  if (run.timedOut) return { failure: `${label} timed out after ${Math.round(timeoutMs / 100) / 10} s and was killed` };
  if (run.interrupted) return {};
  if (run.exitCode === 2) return { block: str(run.stderr) ?? str(run.stdout) ?? `blocked by ${label}` };
  if (run.exitCode !== 0) {
    const why = str(run.stderr) ?? str(run.stdout);
    return { failure: `${label} failed (exit ${run.exitCode ?? '?'})${why ? `: ${why.slice(0, 500)}` : ''}` };
  }
  const json = parseJson(run.stdout);
  if (!json) return PLAIN_STDOUT_IS_CONTEXT.has(event) && str(run.stdout) ? { context: str(run.stdout)! } : {};
  const out: HookVerdict = {};
  const specific = (json['hookSpecificOutput'] ?? {}) as Record<string, unknown>;
  const message = str(json['systemMessage']);
  if (message) out.message = message;
  const context = str(specific['additionalContext']);
  if (context) out.context = context;
  const permission = specific['permissionDecision'];
  const reason = str(specific['permissionDecisionReason']) ?? str(json['reason']);
  if (permission === 'deny' || json['decision'] === 'block') out.block = reason ?? `blocked by ${label}`;
  else if (json['continue'] === false) out.block = str(json['stopReason']) ?? reason ?? `stopped by ${label}`;
  else if (permission === 'allow' || json['decision'] === 'approve') out.allow = true;
  return out;
}
