/** The options of the top-level `agent` command, as commander parses them (see cli.ts). */
export interface GlobalOptions {
  print?: string | boolean;
  /** json and stream-json: Claude Code's shapes; events: this project's own event stream. */
  outputFormat: 'text' | 'json' | 'stream-json' | 'events';
  /** stream-json: Claude Code's user messages as JSON lines on stdin, one turn each. */
  inputFormat?: 'text' | 'stream-json';
  /** Accepted for Claude Code's `-p --output-format stream-json --verbose`; the stream is the same. */
  verbose?: boolean;
  /** stream-json: each reply also as it streams, Claude Code's stream_event lines (Anthropic's stream events). */
  includePartialMessages?: boolean;
  model?: string;
  provider?: string;
  baseUrl?: string;
  resume?: string | boolean;
  continue?: boolean;
  fork?: boolean;
  addDir?: string[];
  db?: string;
  permissionMode?: string;
  maxSteps?: number;
  allowedTools?: string[];
  mcpTrust?: boolean;
  debug?: string | boolean;
  /** Print mode: run a project's .agentrc hooks without an approval. */
  hooksTrust?: boolean;
  /** Print mode: background commands still running after the result are left running (detached), not stopped. */
  keepBackground?: boolean;
}
