// Placeholder types shared with the UI; the policy itself is implemented in this file.
export interface ApprovalRequest {
  toolName: string;
  toolUseId: string;
  input: unknown;
  /** The key argument shown to the person (for Bash: the full command). */
  summary: string;
  /** For Bash: the prefix "allow this command prefix for the session" would remember. */
  suggestedPrefix?: string;
}

export type ApprovalDecision =
  | { kind: 'allow_once' }
  | { kind: 'allow_prefix'; prefix: string }
  | { kind: 'allow_tool' }
  | { kind: 'deny'; note?: string };

/** Asks the person; the TUI renders it. Print mode has none: what needs approval is refused. */
export type Approver = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
