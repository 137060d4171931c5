import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agent, client as clientApp, type AgentContext } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { AcpSession } from '../../src/acp/acpSession.js';
import { editorFiles } from '../../src/acp/editorIo.js';
import type { Runtime } from '../../src/bootstrap.js';
import { commandInfos } from '../../src/commands/registry.js';
import type { ApprovalRequest } from '../../src/tools/permissions.js';
import type { Message } from '../../src/llm/messages.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { TodoView } from '../../src/protocol/views.js';
import { tempDir } from '../tempDirs.js';

// The ACP session's own decisions, with a stand-in editor (the SDK's AgentContext: request and
// notify) and only the part of a runtime they read: what a permission request offers and what
// each answer means, what the editor is told of the commands, and which file reads go through the
// editor's text buffers. test/e2e/acp.test.ts and acp-editor.test.ts run the built agent over stdio.

interface Sent {
  method: string;
  params: Record<string, unknown>;
}

/** An editor that answers session/request_permission with `answer` (or fails it) and records the rest. */
function editor(answer: (params: Record<string, unknown>) => unknown): { client: AgentContext; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    request: async (method: string, params: Record<string, unknown>) => {
      sent.push({ method, params });
      return answer(params);
    },
    notify: async (method: string, params: Record<string, unknown>) => {
      sent.push({ method, params });
    },
  } as unknown as AgentContext;
  return { client, sent };
}

const runtime = (cwd = '/work'): Runtime =>
  ({
    session: { on: () => () => {}, currentConfig: { cwd } },
    commands: [],
    // a capability's command (the background capability's /tasks) is offered like a built-in one
    slash: [{ name: 'tasks', description: 'background commands', run: async () => undefined }],
    goals: { subscribe: () => () => {}, of: () => undefined },
  }) as unknown as Runtime;
const picked = (optionId: string) => () => ({ outcome: { outcome: 'selected', optionId } });
const signal = (): AbortSignal => new AbortController().signal;

const bash: ApprovalRequest = {
  toolUseId: 'tu1',
  toolName: 'Bash',
  input: { command: 'npm test' },
  summary: 'npm test',
  suggestedPrefix: 'npm test',
} as ApprovalRequest;
const plan: ApprovalRequest = {
  toolUseId: 'tu2',
  toolName: 'ExitPlanMode',
  input: { plan: '1. Add the flag\n2. Test it' },
  summary: '1. Add the flag',
  plan: '1. Add the flag\n2. Test it',
} as ApprovalRequest;

describe('permission requests', () => {
  it('a cancelled request (the turn cancelled, the editor gone) denies and stops the turn', async () => {
    const { client } = editor(() => ({ outcome: { outcome: 'cancelled' } }));
    const s = new AcpSession('s1', runtime(), client);
    expect(await s.approve(bash, signal())).toEqual({ kind: 'deny', stop: true });
    const failing = editor(() => {
      throw new Error('connection closed');
    });
    expect(await new AcpSession('s2', runtime(), failing.client).approve(bash, signal())).toEqual({ kind: 'deny', stop: true });
  });

  it("a request the turn's cancel abandons denies and stops the turn at once, though the editor never answers it", async () => {
    // a real SDK client that never answers session/request_permission (an editor showing the prompt)
    let asked!: () => void;
    const shown = new Promise<void>((r) => (asked = r));
    const editorApp = clientApp({ name: 'editor' }).onRequest('session/request_permission', () => {
      asked();
      return new Promise<never>(() => {});
    });
    const decision = await agent({ name: 'agent' }).connectWith(editorApp, async (context) => {
      const turn = new AbortController();
      const answer = new AcpSession('s1', runtime(), context).approve(bash, turn.signal);
      await shown;
      turn.abort();
      // mutation: stopWaitingOnCancel dropped: the turn would wait for an answer that never comes
      let bound: NodeJS.Timeout | undefined;
      const waited = new Promise<never>((_, reject) => {
        bound = setTimeout(() => reject(new Error("the cancelled request still waits for the editor's answer")), 5_000);
      });
      return Promise.race([answer, waited]).finally(() => clearTimeout(bound));
    });
    expect(decision).toEqual({ kind: 'deny', stop: true });
  });

  it('a tool call offers once, its prefix for good, or reject; each answer means what it says', async () => {
    const { client, sent } = editor(picked('allow_always'));
    const s = new AcpSession('s1', runtime(), client);
    expect(await s.approve(bash, signal())).toEqual({ kind: 'allow_prefix', prefix: 'npm test' });
    expect((sent[0]!.params.toolCall as { toolCallId: string }).toolCallId).toBe('tu1');
    const options = (sent[0]!.params.options as Array<{ optionId: string; name: string }>).map((o) => [o.optionId, o.name]);
    expect(options).toEqual([
      ['allow_once', 'Allow once'],
      ['allow_always', 'Allow `npm test` commands'],
      ['reject', 'Reject'],
    ]);
    expect(await new AcpSession('s', runtime(), editor(picked('allow_once')).client).approve(bash, signal())).toEqual({ kind: 'allow_once' });
    expect(await new AcpSession('s', runtime(), editor(picked('reject')).client).approve(bash, signal())).toEqual({ kind: 'deny' });
  });

  it("ExitPlanMode shows the plan with the plan's choices, never an 'always allow'", async () => {
    const { client, sent } = editor(picked('plan_accept_edits'));
    const s = new AcpSession('s1', runtime(), client);
    expect(await s.approve(plan, signal())).toEqual({ kind: 'accept_edits' });
    const params = sent[0]!.params as { toolCall: { title: string; content: unknown }; options: Array<{ optionId: string; kind: string; name: string }> };
    expect(params.toolCall.title).toBe('Approve this plan?');
    // the call the editor shows is the tool call's own id
    expect((params.toolCall as { toolCallId?: string }).toolCallId).toBe('tu2');
    expect(JSON.stringify(params.toolCall.content)).toContain('1. Add the flag\\n2. Test it');
    expect(params.options.map((o) => o.optionId)).toEqual(['plan_approve', 'plan_accept_edits', 'plan_keep_planning']);
    expect(params.options.some((o) => o.kind === 'allow_always' || /always/i.test(o.name))).toBe(false);
    expect(await new AcpSession('s', runtime(), editor(picked('plan_approve')).client).approve(plan, signal())).toEqual({ kind: 'allow_once' });
    // a plan's request cancelled, or the editor gone: denied, the turn stopped
    const gone = editor(() => {
      throw new Error('connection closed');
    });
    expect(await new AcpSession('s', runtime(), gone.client).approve(plan, signal())).toEqual({ kind: 'deny', stop: true });
    expect(await new AcpSession('s', runtime(), editor(() => ({ outcome: { outcome: 'cancelled' } })).client).approve(plan, signal())).toEqual({
      kind: 'deny',
      stop: true,
    });
    // keep planning: the turn ends and the person says what to change
    expect(await new AcpSession('s', runtime(), editor(picked('plan_keep_planning')).client).approve(plan, signal())).toEqual({ kind: 'deny', stop: true });
  });
});

describe('commands offered to the editor', () => {
  it('not the ones that need the TUI (/clear, /resume, /exit, /quit), which would only be refused', async () => {
    const { client, sent } = editor(() => ({}));
    new AcpSession('s1', runtime(), client).advertiseCommands();
    const update = sent.find((m) => m.method === 'session/update')!.params.update as { availableCommands: Array<{ name: string }> };
    const names = update.availableCommands.map((c) => c.name);
    for (const refused of ['clear', 'resume', 'exit', 'quit']) expect(names).not.toContain(refused);
    expect(names).toEqual(expect.arrayContaining(['compact', 'tasks', 'help']));
    // the TUI still lists them all
    expect(commandInfos().map((c) => c.name)).toEqual(expect.arrayContaining(['clear', 'resume', 'exit', 'quit']));
  });
});

describe("the editor's text buffers", () => {
  it('plain UTF-8 text is read through fs/read_text_file (unsaved changes included)', async () => {
    const dir = tempDir('agent-acp-files-');
    writeFileSync(join(dir, 'a.ts'), 'on disk\n');
    const { client, sent } = editor(() => ({ content: 'in the buffer\n' }));
    const files = editorFiles(client, () => 's1', { read: true, write: true });
    expect((await files.read(join(dir, 'a.ts'))).toString('utf8')).toBe('in the buffer\n');
    expect(sent.map((m) => m.method)).toEqual(['fs/read_text_file']);
  });

  it('a binary or non-UTF-8 file is read from disk, never through the text buffer', async () => {
    const dir = tempDir('agent-acp-files-');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')]);
    writeFileSync(join(dir, 'a.png'), png);
    writeFileSync(join(dir, 'l1.txt'), latin1);
    writeFileSync(join(dir, 'u16.txt'), utf16);
    const { client, sent } = editor(() => ({ content: 'WRONG: a text buffer' }));
    const files = editorFiles(client, () => 's1', { read: true, write: true });
    expect(await files.read(join(dir, 'a.png'))).toEqual(png);
    expect(await files.read(join(dir, 'l1.txt'))).toEqual(latin1);
    expect(await files.read(join(dir, 'u16.txt'))).toEqual(utf16);
    expect(sent).toEqual([]);
  });
});

describe('a prompt with a goal in force', () => {
  /** A runtime whose goal wants `turns` more turns; each turn stops at its step limit, as a long goal turn does. */
  function goalRuntime(turns: string[], mode = 'ask'): { runtime: Runtime; prompted: string[]; planModes: boolean[] } {
    const prompted: string[] = [];
    const planModes: boolean[] = [];
    const runtime = {
      session: {
        id: 'g1',
        on: () => () => {},
        currentConfig: { cwd: '/work' },
        permissions: () => ({ mode }),
        messages: () => [],
        prompt: async (text: string) => {
          prompted.push(text);
          return { reason: 'max_steps' };
        },
      },
      commands: [],
      slash: [{ name: 'goal', description: 'set a goal', run: async () => ({ kind: 'text', text: 'Goal set.' }) }],
      goals: {
        subscribe: () => () => {},
        of: () => undefined,
        next: async (_id: string, planMode: boolean) => (planModes.push(planMode), turns.shift()),
      },
      views: {},
    } as unknown as Runtime;
    return { runtime, prompted, planModes };
  }

  it("a command that sets one answers after the goal's turns, with the last turn's stop reason", async () => {
    const { runtime, prompted } = goalRuntime(['go on: step 1', 'go on: step 2']);
    const { client, sent } = editor(() => ({}));
    const response = await new AcpSession('g1', runtime, client).prompt([{ type: 'text', text: '/goal ship it' }]);
    expect(prompted).toEqual(['go on: step 1', 'go on: step 2']);
    expect(response).toEqual({ stopReason: 'max_turn_requests' });
    expect(JSON.stringify(sent)).toContain('Goal set.');
  });

  it('the goal is told whether the session is in plan mode (its turns then plan, not act)', async () => {
    const planning = goalRuntime(['go on'], 'plan');
    await new AcpSession('g1', planning.runtime, editor(() => ({})).client).prompt([{ type: 'text', text: 'plan the build' }]);
    expect(planning.planModes).toEqual([true, true]);
    const asking = goalRuntime([]);
    await new AcpSession('g1', asking.runtime, editor(() => ({})).client).prompt([{ type: 'text', text: 'fix the build' }]);
    expect(asking.planModes).toEqual([false]);
  });

  it('a prompt answers after the turns its goal added', async () => {
    const { runtime, prompted } = goalRuntime(['go on']);
    const response = await new AcpSession('g1', runtime, editor(() => ({})).client).prompt([{ type: 'text', text: 'fix the build' }]);
    expect(prompted).toEqual(['fix the build', 'go on']);
    expect(response).toEqual({ stopReason: 'max_turn_requests' });
  });
});

describe('what the editor is told of the session', () => {
  /** A runtime whose session events, goal changes and task list the test drives; `interrupted`: what the session's interrupt answers. */
  function driven(interrupted = false) {
    let emit: (e: SessionEvent) => void = () => {};
    let goalChanged: (id: string, goal: unknown) => void = () => {};
    const todos: TodoView[] = [];
    const goalInterrupts: string[] = [];
    let closed = 0;
    const runtime = {
      close: () => void closed++,
      session: {
        id: 'd1',
        on: (l: (e: SessionEvent) => void) => ((emit = l), () => (emit = () => {})),
        currentConfig: { cwd: '/work' },
        interrupt: () => interrupted,
      },
      commands: [],
      slash: [],
      views: { todos: () => ({ todos: [...todos] }) },
      goals: {
        subscribe: (l: typeof goalChanged) => ((goalChanged = l), () => (goalChanged = () => {})),
        of: (id: string) => ({ observe: () => {}, interrupt: () => goalInterrupts.push(id) }),
      },
    } as unknown as Runtime;
    const { client, sent } = editor(() => ({}));
    const s = new AcpSession('d1', runtime, client);
    const updates = () => sent.filter((m) => m.method === 'session/update').map((m) => m.params.update as Record<string, unknown>);
    return {
      s,
      emit: (e: SessionEvent) => emit(e),
      goalChanged: (id: string, goal: unknown) => goalChanged(id, goal),
      todos,
      goalInterrupts,
      updates,
      closed: () => closed,
    };
  }
  const result: Message = {
    id: 'r1',
    role: 'user',
    kind: 'normal',
    createdAt: 0,
    blocks: [{ type: 'tool_result', toolUseId: 't1', content: 'ok', isError: false }],
  };

  it('a prompt refused (larger than the window) is said as an error; an info notice is not, a warning is', () => {
    const d = driven();
    d.emit({ type: 'prompt_refused', text: 'the prompt', message: 'the prompt is larger than the window' });
    d.emit({ type: 'notice', level: 'info', text: 'compacting' });
    d.emit({ type: 'notice', level: 'warning', text: 'slow' });
    expect(d.updates().map((u) => (u.content as { text: string }).text)).toEqual(['Error: the prompt is larger than the window', '\n\nWarning: slow']);
  });

  it("the task list goes as a plan when a tool's result changed it, once per change", () => {
    const d = driven();
    d.emit({ type: 'message', message: result });
    expect(d.updates()).toEqual([]);
    d.todos.push({ content: 'Run the tests', status: 'in_progress' });
    d.emit({ type: 'message', message: { ...result, blocks: [{ type: 'text', text: 'no result here' }] } });
    expect(d.updates()).toEqual([]);
    // a message with a tool's result among other blocks counts (parallel calls' results, a note beside them)
    d.emit({ type: 'message', message: { ...result, blocks: [{ type: 'text', text: 'a note' }, ...result.blocks] } });
    expect(d.updates()).toHaveLength(1);
    d.emit({ type: 'message', message: result });
    expect(d.updates()).toEqual([{ sessionUpdate: 'plan', entries: [expect.objectContaining({ content: 'Run the tests', status: 'in_progress' })] }]);
  });

  it("this session's goal goes in session_info_update's _meta (none: null); another session's does not", () => {
    const d = driven();
    d.goalChanged('other', { objective: 'not ours' });
    d.goalChanged('d1', { objective: 'ship it' });
    d.goalChanged('d1', undefined);
    expect(d.updates()).toEqual([
      { sessionUpdate: 'session_info_update', _meta: { agentGoal: { objective: 'ship it' } } },
      { sessionUpdate: 'session_info_update', _meta: { agentGoal: null } },
    ]);
  });

  it("close stops listening: the session's events and its goal's changes after it are not sent, and the runtime is closed", () => {
    const d = driven();
    d.emit({ type: 'text_delta', text: 'before' });
    d.s.close();
    d.emit({ type: 'text_delta', text: 'after' });
    d.goalChanged('d1', { objective: 'ship it' });
    expect(d.updates()).toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'before' } }]);
    expect(d.closed()).toBe(1);
  });

  it('cancel stops the running turn, or else the goal between its turns', () => {
    const idle = driven(false);
    idle.s.cancel();
    expect(idle.goalInterrupts).toEqual(['d1']);
    const turning = driven(true);
    turning.s.cancel();
    expect(turning.goalInterrupts).toEqual([]);
  });
});

// Mutations checked: approve() answering a cancelled request with { kind: 'deny' } (no stop) fails
// "a cancelled request"; editorFiles reading every file through fs/read_text_file (no plainText
// check) fails "binary or non-UTF-8"; advertiseCommands without { app: false } fails "not the ones
// that need the TUI"; approve() without its plan branch offers "Always allow ExitPlanMode" and fails
// the plan case.
// A /goal command's goal turns not awaited (the prompt answered before them) fails "a command that
// sets one".
