// /mcp: the MCP servers with their state, tools and what their definitions cost, and the
// person's controls over them (reconnect, disable, enable, approve a project's server).
import type { McpManager, McpServerView, ReconnectOutcome } from './manager.js';
import { fmtInt } from '../tools/format.js';

const fmt = (n: number): string => fmtInt(Math.round(n));

const STATE_TEXT: Record<McpServerView['state'], string> = {
  connecting: 'connecting…',
  connected: 'connected',
  reconnecting: 'reconnecting…',
  failed: 'failed',
  'needs-approval': 'waiting for approval',
  declined: 'not approved',
  disabled: 'disabled',
};

/** The footer's word on MCP ("MCP 2✓ · 1 reconnecting"), or undefined when no server is configured. */
export function mcpStatus(m: McpManager | undefined): string | undefined {
  if (!m || m.size === 0) return undefined;
  const views = m.views();
  const count = (st: McpServerView['state']): number => views.filter((v) => v.state === st).length;
  const parts = [`${count('connected')}✓`];
  if (count('connecting') > 0) parts.push(`${count('connecting')} connecting`);
  if (count('reconnecting') > 0) parts.push(`${count('reconnecting')} reconnecting`);
  if (count('failed') > 0) parts.push(`${count('failed')} failed`);
  if (count('needs-approval') > 0) parts.push(`${count('needs-approval')} to approve`);
  return `MCP ${parts.join(' · ')}`;
}

export function mcpList(m: McpManager): string {
  const views = m.views();
  const set = m.toolSet();
  const width = Math.max(...views.map((v) => v.name.length));
  const head = set.deferred
    ? `MCP tool definitions: ${fmt(set.fullTokens)} tokens in full, above the ${fmt(m.deferThreshold())}-token threshold ` +
      `(mcp.deferAboveTokens): ${fmt(set.sentTokens)} sent instead (a catalog; the model loads the schemas it needs).`
    : `MCP tool definitions: ${fmt(set.fullTokens)} tokens, sent in full (deferred above ${fmt(m.deferThreshold())}).`;
  const rows = views.map((v) => {
    const tools = v.state === 'connected' || v.state === 'reconnecting' ? `${v.tools} tools, ${fmt(v.tokens)} tokens` : '';
    const line = `  ${v.name.padEnd(width)}  ${v.transport.padEnd(5)}  ${STATE_TEXT[v.state]}${tools ? `  ${tools}` : ''}  (${v.project ? 'project: ' : ''}${v.file})`;
    const down = v.down
      ? [
          `    down for ${Math.round((Date.now() - v.down.since) / 1000)} s, ${v.down.attempts} attempt${v.down.attempts === 1 ? '' : 's'} so far: ${v.down.why}`,
        ]
      : [];
    const notes = [...(v.error ? [`    error: ${v.error}`] : []), ...down, ...v.warnings.map((w) => `    warning: ${w}`)];
    return [line, ...notes].join('\n');
  });
  return [
    head,
    ...rows,
    '',
    '/mcp reconnect <name> · /mcp disable <name> · /mcp enable <name> · /mcp approve <name> (a project server, remembered for this project)',
  ].join('\n');
}

/** What /mcp reconnect did, in a sentence. */
export function reconnectText(name: string, transport: McpServerView['transport'], r: ReconnectOutcome): string {
  if (!r.ok)
    return `MCP server "${name}" could not reconnect: ${r.error}. ${r.retrying ? 'It is tried again by itself; its tools stay listed meanwhile.' : `/mcp reconnect ${name} tries again.`}`;
  const fresh = transport === 'stdio' ? 'a new process' : r.newSession ? 'a new session' : 'the same session';
  return `MCP server "${name}" reconnected in ${(r.ms / 1000).toFixed(1)} s: ${r.tools} tool${r.tools === 1 ? '' : 's'}, ${fresh}.`;
}

/** Runs `/mcp <args>`; returns the text to show, or throws Error with what was wrong. */
export async function mcpCommand(m: McpManager | undefined, args: string): Promise<string> {
  if (!m || m.size === 0) return 'No MCP servers are configured. Add them to .mcp.json in the project (Claude Code\'s format) or to "mcpServers" in .agentrc.';
  const [verb = '', name = ''] = args.trim().split(/\s+/);
  if (verb === '' || verb === 'list') return mcpList(m);
  const known = m.views().find((v) => v.name === name);
  if (!known)
    throw new Error(
      `usage: /mcp [list | reconnect | disable | enable | approve] <name>; the servers are ${m
        .views()
        .map((v) => v.name)
        .join(', ')}`,
    );
  switch (verb) {
    case 'reconnect': {
      const outcome = await m.reconnect(name);
      if (!outcome) throw new Error(`"${name}" cannot be reconnected (${known.error ?? STATE_TEXT[known.state]})`);
      return reconnectText(name, known.transport, outcome);
    }
    case 'disable':
      m.setEnabled(name, false);
      return `MCP server "${name}" is disabled for this session; its tools leave the next request.`;
    case 'enable':
      m.setEnabled(name, true);
      return `MCP server "${name}" is enabled${m.views().find((v) => v.name === name)?.state === 'needs-approval' ? ', and waits for your approval (/mcp approve ' + name + ')' : ''}.`;
    case 'approve':
      if (known.state !== 'needs-approval' && known.state !== 'declined') return `MCP server "${name}" needs no approval (${STATE_TEXT[known.state]}).`;
      m.approve(name, true);
      return `Approved MCP server "${name}" for this project; it is starting.`;
    default:
      throw new Error(`unknown /mcp action "${verb}": use list, reconnect, disable, enable or approve`);
  }
}
