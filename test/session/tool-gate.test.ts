// The gate for a sandboxed command (session/toolGate.ts decideSandboxed, askOnce): what runs
// outside the sandbox, or with a sandbox that cannot start, only ever runs on the person's answer
// for that one call; deny mode refuses it without asking; allow mode lets an escape out.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ToolGate } from '../../src/session/toolGate.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import type { AnyTool, SandboxPlan } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

function gateFor(mode: string, answer?: ApprovalDecision): { gate: ToolGate; asked: ApprovalRequest[] } {
  const root = tempDir('tool-gate-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const config = loadConfig({ cwd, env: {}, flags: { permissionMode: mode }, home });
  const asked: ApprovalRequest[] = [];
  const approver = answer
    ? async (req: ApprovalRequest): Promise<ApprovalDecision> => {
        asked.push(req);
        return answer;
      }
    : undefined;
  return {
    gate: new ToolGate(
      () => config,
      undefined,
      approver,
      () => undefined,
    ),
    asked,
  };
}

const bash = (plan: SandboxPlan): AnyTool =>
  ({
    name: 'Bash',
    description: '',
    inputSchema: { type: 'object' },
    kind: 'execute',
    parse: (i: unknown) => i,
    summarize: () => 'make install',
    sandboxPlan: () => plan,
    run: async () => ({ content: '', isError: false }),
  }) as AnyTool;

const decide = (gate: ToolGate, plan: SandboxPlan, preapproved = false) =>
  gate.authorize({ tool: bash(plan), input: { command: 'make install' }, summary: 'make install', toolUseId: 't1' }, new AbortController().signal, preapproved);

const ESCAPE: SandboxPlan = { kind: 'outside', reason: 'escape' };
const UNAVAILABLE: SandboxPlan = { kind: 'unavailable', refuse: false, why: 'no bwrap' };

describe('the gate for a sandboxed command', () => {
  it('deny mode refuses an escape and an unsandboxed run without asking the person there to ask', async () => {
    for (const plan of [ESCAPE, UNAVAILABLE]) {
      const { gate, asked } = gateFor('deny', { kind: 'allow_once' });
      const auth = await decide(gate, plan);
      expect(auth).toMatchObject({ ok: false, message: expect.stringContaining('permissions mode "deny"): make install.') });
      expect(asked).toEqual([]);
    }
  });

  it('allow mode lets an escape out without asking; plan mode refuses it with the plan-mode words', async () => {
    const allow = gateFor('allow', { kind: 'deny' });
    expect(await decide(allow.gate, ESCAPE)).toEqual({ ok: true, sandbox: 'outside' });
    expect(allow.asked).toEqual([]);
    const plan = gateFor('plan', { kind: 'allow_once' });
    expect(await decide(plan.gate, ESCAPE)).toMatchObject({ ok: false, message: expect.stringMatching(/plan mode/i) });
    expect(plan.asked).toEqual([]);
  });

  it('an escape refused by the settings names why and what to do, and asks nobody', async () => {
    const { gate, asked } = gateFor('ask', { kind: 'allow_once' });
    expect(await decide(gate, { ...ESCAPE, refused: 'sandbox.allowUnsandboxedCommands is false' })).toEqual({
      ok: false,
      message: 'Bash was not run outside the sandbox: sandbox.allowUnsandboxedCommands is false. Run it without dangerouslyDisableSandbox.',
    });
    expect(asked).toEqual([]);
  });

  it("the person's no to an escape is the model's to read, with their note, and a stop ends the turn", async () => {
    const no = gateFor('ask', { kind: 'deny', note: 'use the local prefix' });
    expect(await decide(no.gate, ESCAPE)).toEqual({ ok: false, message: 'The user denied this Bash call and said: use the local prefix' });
    expect(no.asked).toEqual([expect.objectContaining({ onceOnly: true, unsandboxed: 'the model asks to run it outside the sandbox' })]);
    const bare = gateFor('acceptEdits', { kind: 'deny' });
    expect(await decide(bare.gate, UNAVAILABLE)).toEqual({ ok: false, message: 'The user denied this Bash call.' });
    const stop = gateFor('ask', { kind: 'deny', stop: true });
    expect(await decide(stop.gate, ESCAPE)).toEqual({
      ok: false,
      stop: true,
      message: 'The user denied this Bash call, and stopped the turn: wait for their next message.',
    });
  });

  it('a call a hook approved runs inside the sandbox without asking; it does not let an escape out unasked', async () => {
    const inside = gateFor('ask', { kind: 'deny' });
    expect(await decide(inside.gate, { kind: 'inside', autoAllow: false }, true)).toEqual({ ok: true });
    expect(inside.asked).toEqual([]);
    const unasked = gateFor('ask', { kind: 'deny' });
    expect(await decide(unasked.gate, ESCAPE, true)).toMatchObject({ ok: false });
    expect(unasked.asked).toHaveLength(1);
  });

  it('inside the sandbox without auto-allow, the policy asks (allow mode runs it)', async () => {
    const ask = gateFor('ask', { kind: 'allow_once' });
    expect(await decide(ask.gate, { kind: 'inside', autoAllow: false })).toEqual({ ok: true });
    expect(ask.asked).toHaveLength(1);
    const allow = gateFor('allow', { kind: 'deny' });
    expect(await decide(allow.gate, { kind: 'inside', autoAllow: true })).toEqual({ ok: true });
    expect(allow.asked).toEqual([]);
  });
});

describe('the rest of the sandboxed paths', () => {
  it('a sandbox that cannot start: refused outright under failIfUnavailable, refused in print mode (nobody to ask), run on a yes', async () => {
    const { gate, asked } = gateFor('allow', { kind: 'allow_once' });
    expect(await decide(gate, { ...UNAVAILABLE, refuse: true })).toEqual({
      ok: false,
      message:
        'Bash was not run: the sandbox cannot start (no bwrap), and sandbox.failIfUnavailable refuses every command without it: make install. Tell the user.',
    });
    expect(asked).toEqual([]);
    const print = gateFor('allow');
    expect(await decide(print.gate, UNAVAILABLE)).toEqual({
      ok: false,
      message:
        "Bash needs the user's approval (the sandbox cannot start (no bwrap): it would run unsandboxed), and nobody can approve in non-interactive mode, so it was not run: make install.",
    });
    const yes = gateFor('allow', { kind: 'allow_once' });
    expect(await decide(yes.gate, UNAVAILABLE)).toEqual({ ok: true });
    expect(yes.asked).toEqual([expect.objectContaining({ unsandboxed: 'the sandbox cannot start (no bwrap): it would run unsandboxed' })]);
  });

  it('an escape the person allows runs outside; plan mode runs a command inside read-only; auto-allow runs unasked in ask and acceptEdits modes only', async () => {
    const out = gateFor('ask', { kind: 'allow_once' });
    expect(await decide(out.gate, ESCAPE)).toEqual({ ok: true, sandbox: 'outside' });
    const plan = gateFor('plan', { kind: 'deny' });
    const read = { tool: bash({ kind: 'inside', autoAllow: true }), input: { command: 'ls -la' }, summary: 'ls -la', toolUseId: 't2' };
    expect(await plan.gate.authorize(read, new AbortController().signal)).toEqual({ ok: true, sandbox: 'readOnly' });
    expect(plan.asked).toEqual([]);
    for (const mode of ['ask', 'acceptEdits'] as const) {
      const auto = gateFor(mode, { kind: 'deny' });
      expect(await decide(auto.gate, { kind: 'inside', autoAllow: true }), mode).toEqual({ ok: true });
      expect(auto.asked, mode).toEqual([]);
    }
    const deny = gateFor('deny', { kind: 'allow_once' });
    expect(await decide(deny.gate, { kind: 'inside', autoAllow: true })).toMatchObject({ ok: false });
  });
});

describe('the gate for a call with no sandbox', () => {
  it('one a hook approved runs without asking; the same call unapproved goes to the person', async () => {
    const edit = {
      name: 'Write',
      description: '',
      inputSchema: { type: 'object' },
      kind: 'edit',
      parse: (i: unknown) => i,
      summarize: () => 'notes.md',
      run: async () => ({ content: '', isError: false }),
    } as AnyTool;
    const call = { tool: edit, input: { path: 'notes.md', content: 'x' }, summary: 'notes.md', toolUseId: 't2' };
    const approved = gateFor('ask', { kind: 'deny' });
    expect(await approved.gate.authorize(call, new AbortController().signal, true)).toEqual({ ok: true });
    expect(approved.asked).toEqual([]);
    const unapproved = gateFor('ask', { kind: 'deny' });
    expect(await unapproved.gate.authorize(call, new AbortController().signal, false)).toMatchObject({ ok: false });
    expect(unapproved.asked).toHaveLength(1);
  });
});
