/** The options of the top-level `agent` command, as commander parses them (see cli.ts). */
export interface GlobalOptions {
  print?: string | boolean;
  outputFormat: 'text' | 'json' | 'stream-json';
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
}
