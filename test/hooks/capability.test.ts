import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capability, CapabilityHost } from '../../src/capability/capability.js';
import type { CapabilityContext } from '../../src/capability/context.js';
import type { HookSource } from '../../src/config/config.js';
import { hookContextHeader, hooks } from '../../src/hooks/capability.js';
import type { Approver, ApprovalDecision } from '../../src/tools/permissions.js';
import { ProjectTrust } from '../../src/trust/projectTrust.js';
import { tempDir } from '../tempDirs.js';

// The hooks capability as the composition root builds it (src/hooks/capability.ts): a session's
// hooks when the configuration has hook files, none without; the person's own file's hooks run
// unasked, and a UserPromptSubmit hook's output joins the prompt's message.

function built(hookSources: HookSource[] | undefined, approver?: Approver, dir = tempDir('hooks-capability-')): Capability {
  return hooks({
    config: { cwd: dir, ...(hookSources ? { hookSources } : {}) },
    // a home of its own: nothing of the machine's reaches the hooks
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    isSecret: () => false,
    toolNames: () => ['Bash'],
    trust: () => new ProjectTrust(join(dir, 'trust.json')),
    trustProject: false,
    report: () => {},
    ...(approver ? { approver } : {}),
  } as unknown as CapabilityContext) as Capability;
}

const host = { sessionId: 's_hooks', resumed: false, turn: { activity: () => {}, notice: () => {} } } as unknown as CapabilityHost;

describe('the hooks capability', () => {
  it("places one user file's UserPromptSubmit hook: its output comes with the prompt", async () => {
    const source: HookSource = { file: '/home/.agentrc', scope: 'user', dir: '/home', hooks: { UserPromptSubmit: [{ command: 'echo from-the-hook' }] } };
    // mutation: hooks placed only from two files on (`length > 1`) leaves a single file's unrun
    const opened = built([source]).open(host);
    const r = await opened.hooks!.beforePrompt!('hello', new AbortController().signal);
    expect(r).toMatchObject({ blocks: [{ type: 'text', text: `${hookContextHeader('UserPromptSubmit')}\nfrom-the-hook` }] });
  });

  it('has no hooks without hook files', () => {
    expect(built(undefined).open(host).hooks).toBeUndefined();
    expect(built([]).open(host).hooks).toBeUndefined();
  });

  it("a project file's hooks are put to the person: for good (remembered), once (asked again next run), or not at all", async () => {
    const dir = tempDir('hooks-capability-');
    const project: HookSource = { file: join(dir, '.agentrc'), scope: 'project', dir, hooks: { UserPromptSubmit: [{ command: 'echo project-hook' }] } };
    const run = async (kind: ApprovalDecision['kind']) => {
      const asked: string[] = [];
      const approver: Approver = async (req) => (asked.push(req.toolName), { kind } as ApprovalDecision);
      const r = await built([project], approver, dir).open(host).hooks!.beforePrompt!('hello', new AbortController().signal);
      return { asked, ran: JSON.stringify(r ?? {}).includes('project-hook') };
    };
    // mutations: `answer.kind !== 'allow_tool'` or `!== 'allow_once'` in askHooksApproval (hooks/capability.ts) swap the outcomes
    expect(await run('allow_once')).toEqual({ asked: ['Hooks'], ran: true });
    expect(await run('deny')).toEqual({ asked: ['Hooks'], ran: false });
    expect(await run('allow_tool')).toEqual({ asked: ['Hooks'], ran: true });
    // remembered: the next run does not ask
    expect(await run('deny')).toEqual({ asked: [], ran: true });
  });
});
