import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { emptyUsage, type Block } from '../../src/llm/messages.js';
import type { ModelRequest, Provider, StreamEvent } from '../../src/llm/provider.js';
import { historyProblems } from '../../src/llm/validate.js';
import { runSlash } from '../../src/commands/registry.js';
import { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { createTools } from '../../src/tools/registry.js';
import { tempDir } from '../tempDirs.js';

// Edits through a live session: approvals and modes, snapshots per turn, /rewind.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

/** Replies with the next scripted blocks (tool calls or text). */
class Script implements Provider {
  readonly name = 'anthropic' as const;
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: Block[][]) {}
  async *stream(req: ModelRequest): AsyncIterable<StreamEvent> {
    this.requests.push({ ...req, messages: [...req.messages] });
    const blocks = this.steps.shift() ?? [{ type: 'text', text: 'done' }];
    await Promise.resolve();
    yield {
      type: 'done',
      blocks,
      stopReason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 },
      model: req.model,
    };
  }
}

let n = 0;
const call = (name: string, input: Record<string, unknown>): Block[] => [{ type: 'tool_use', id: `tu${++n}`, name, input }];

function setup(mode: Config['permissions']['mode'] = 'ask') {
  const dir = tempDir('agent-edit-session-');
  const base = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const config: Config = { ...base, permissions: { ...base.permissions, mode } };
  const store = openStore(config.dbPath);
  return { dir, config, store };
}

function open(config: Config, store: Store, provider: Provider, answers: ApprovalDecision[] = [], resume?: ReturnType<Store['getSession']>) {
  const asked: ApprovalRequest[] = [];
  const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> => {
    asked.push(req);
    return answers.shift() ?? { kind: 'deny' };
  };
  const session = Session.open(
    { config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter, approver },
    resume,
  );
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events, asked };
}

describe('edits in a session', () => {
  it('asks with the diff; "accept edits" switches the mode (an event) and the next edit does not ask', async () => {
    const { dir, config, store } = setup();
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n');
    const provider = new Script([
      call('FileRead', { path: 'a.txt' }),
      call('Edit', { path: 'a.txt', old_string: 'one', new_string: 'ONE' }),
      call('Edit', { path: 'a.txt', old_string: 'two', new_string: 'TWO' }),
    ]);
    const { session, events, asked } = open(config, store, provider, [{ kind: 'accept_edits' }]);
    await session.prompt('shout');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.diff).toMatchObject({ path: 'a.txt', added: 1, removed: 1 });
    expect(events).toContainEqual({ type: 'permission_mode', mode: 'acceptEdits' });
    expect(session.view().permissionMode).toBe('acceptEdits');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('ONE\nTWO\n');
    expect(session.setPermissionMode('next')).toBe('plan');
    expect(session.setPermissionMode('next')).toBe('deny');
    expect(session.setPermissionMode('next')).toBe('ask');
    session.close();
  });

  it('deny and stop ends the turn: the model is not called again and the history stays valid', async () => {
    const { dir, config, store } = setup();
    writeFileSync(join(dir, 'a.txt'), 'x\n');
    const provider = new Script([call('FileRead', { path: 'a.txt' }), call('Edit', { path: 'a.txt', old_string: 'x', new_string: 'y' })]);
    const { session } = open(config, store, provider, [{ kind: 'deny', note: 'not this file', stop: true }]);
    const r = await session.prompt('edit');
    expect(r.reason).toBe('stopped');
    expect(provider.requests).toHaveLength(2);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('x\n');
    expect(historyProblems(session.messages())).toEqual([]);
    session.close();
  });

  it('snapshots the first state of each file per turn; /rewind code, conversation, and both after a resume', async () => {
    const { dir, config, store } = setup('acceptEdits');
    writeFileSync(join(dir, 'a.txt'), 'v0\n');
    const provider = new Script([
      call('FileRead', { path: 'a.txt' }),
      call('Edit', { path: 'a.txt', old_string: 'v0', new_string: 'v1' }),
      call('Edit', { path: 'a.txt', old_string: 'v1', new_string: 'v2' }),
      [{ type: 'text', text: 'turn one done' }],
      call('Write', { path: 'b/new.txt', content: 'new\n' }),
      [{ type: 'text', text: 'turn two done' }],
      call('Edit', { path: 'a.txt', old_string: 'v2', new_string: 'v3' }),
      [{ type: 'text', text: 'turn three done' }],
    ]);
    const { session } = open(config, store, provider);
    await session.prompt('first');
    await session.prompt('second');
    await session.prompt('third');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v3\n');
    const targets = session.edits.rewindTargets();
    expect(targets.map((t) => [t.index, t.text, t.files])).toEqual([
      [1, 'first', ['a.txt', 'b/new.txt']],
      [2, 'second', ['b/new.txt', 'a.txt']],
      [3, 'third', ['a.txt']],
    ]);
    // code back to before turn 2: a.txt as turn 1 left it, the new file gone; the conversation stays
    const code = await session.edits.rewind('2', 'code');
    expect(code.files.map((f) => [f.path, f.action])).toEqual([
      ['b/new.txt', 'removed'],
      ['a.txt', 'restored'],
    ]);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v2\n');
    expect(existsSync(join(dir, 'b/new.txt'))).toBe(false);
    expect(session.edits.rewindTargets()).toHaveLength(3);
    // the conversation back to before turn 3, in a resumed session
    session.close();
    const again = open(config, store, new Script([]), [], store.getSession(session.id));
    const conv = await again.session.edits.rewind('3', 'conversation');
    expect(conv.archived).toBeGreaterThan(0);
    expect(again.events).toContainEqual({ type: 'history_reset' });
    expect(again.session.messages().some((m) => m.blocks.some((b) => b.type === 'text' && b.text === 'third'))).toBe(false);
    expect(historyProblems(again.session.messages())).toEqual([]);
    // both, to before turn 1: the file as it was at the start
    await again.session.edits.rewind('1', 'both');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v0\n');
    // only the agent's date note, which came before the first turn, is left
    expect(again.session.messages().filter((m) => m.kind !== 'meta')).toEqual([]);
    // rewound turns stay listed for their code only
    expect(again.session.edits.rewindTargets().map((t) => [t.index, t.inConversation, t.gone])).toEqual([
      [1, false, 'rewound'],
      [2, false, 'rewound'],
      [3, false, 'rewound'],
    ]);
    await expect(again.session.edits.rewind('2', 'conversation')).rejects.toThrow(/taken out of the conversation by an earlier rewind/);
    await expect(again.session.edits.rewind('9', 'code')).rejects.toThrow(/no turn "9"/);
    again.session.close();
  });

  it('/rewind N code names each file it put back; a turn after which nothing changed says so', async () => {
    const { dir, config, store } = setup('acceptEdits');
    writeFileSync(join(dir, 'a.txt'), 'v0\n');
    const provider = new Script([
      [{ type: 'text', text: 'nothing to change' }],
      call('FileRead', { path: 'a.txt' }),
      call('Edit', { path: 'a.txt', old_string: 'v0', new_string: 'v1' }),
      [{ type: 'text', text: 'edited' }],
      [{ type: 'text', text: 'a question answered' }],
    ]);
    const { session } = open(config, store, provider);
    for (const p of ['look', 'edit it', 'a question']) await session.prompt(p);
    const say = async (line: string): Promise<string> => {
      const out = await runSlash({ session }, line);
      return out?.kind === 'text' ? out.text : '';
    };
    // the one file the second turn edited, by name
    const one = (await say('/rewind 2 code')).split('\n');
    expect(one).toContain('  ↺ a.txt restored');
    expect(one.some((l) => l.startsWith('Code: no file'))).toBe(false);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v0\n');
    // nothing differs since the third turn's checkpoint: no file line, and the reason
    const none = (await say('/rewind 3 code')).split('\n');
    expect(none.filter((l) => l.startsWith('  '))).toEqual([]);
    expect(none.some((l) => l.startsWith('Code: no file'))).toBe(true);
    session.close();
  });
});
