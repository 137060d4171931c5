import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CapabilityContext, CommandSession } from '../../src/capability/context.js';
import type { SkillCatalog } from '../../src/skills/catalog.js';
import { skills } from '../../src/skills/capability.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { ProjectTrust } from '../../src/trust/projectTrust.js';
import { tempDir } from '../tempDirs.js';

// The skills capability as the run builds it (its factory, over a project with a skill that runs
// code and a real trust file): what each answer of the person's means, and /skills's command.

/** A project whose skill runs a command, and the trust file the person's approvals go to. */
function project(): { cwd: string; home: string; trustFile: string } {
  const cwd = tempDir('agent-skills-cap-');
  const home = join(cwd, 'home');
  mkdirSync(join(cwd, '.claude', 'skills', 'deploy'), { recursive: true });
  mkdirSync(home);
  writeFileSync(
    join(cwd, '.claude', 'skills', 'deploy', 'SKILL.md'),
    '---\nname: deploy\ndescription: Deploys\n---\nThe branch: !`git branch --show-current`\n',
  );
  return { cwd, home, trustFile: join(home, 'trust.json') };
}

/** The capability built for `p`; `answer` is the person's answer to a project skill's code (undefined: print mode, nobody asked). */
async function built(p: ReturnType<typeof project>, answer?: ApprovalDecision['kind']) {
  const asked: ApprovalRequest[] = [];
  const ctx = {
    config: { cwd: p.cwd },
    env: { HOME: p.home },
    ...(answer ? { approver: async (req: ApprovalRequest) => (asked.push(req), { kind: answer }) as ApprovalDecision } : {}),
    trust: () => new ProjectTrust(p.trustFile),
    trustProject: false,
    report: () => {},
  } as unknown as CapabilityContext;
  const cap = await skills(ctx);
  if (!cap?.parts?.skills) throw new Error('no skills capability');
  const catalog = cap.parts.skills as SkillCatalog;
  const runs = () => catalog.mayRunCode(catalog.list().find((s) => s.name === 'deploy')!, new AbortController().signal);
  return { cap, runs, asked };
}

describe("a project skill's code: what each answer of the person's means", () => {
  it('"allow for good" runs it and is remembered: the next run does not ask', async () => {
    const p = project();
    const first = await built(p, 'allow_tool');
    expect(await first.runs()).toBe(true);
    expect(first.asked.map((r) => r.projectCode)).toEqual([expect.objectContaining({ what: 'skill', name: 'deploy', changed: false })]);
    const next = await built(p, 'deny');
    expect(await next.runs()).toBe(true);
    expect(next.asked).toEqual([]);
  });

  it('"allow once" runs it for this run only; a denial refuses it for this run only; neither is remembered', async () => {
    const p = project();
    const once = await built(p, 'allow_once');
    expect(await once.runs()).toBe(true);
    expect(once.asked).toHaveLength(1);
    const denied = await built(p, 'deny');
    expect(await denied.runs()).toBe(false);
    expect(denied.asked).toHaveLength(1);
    const again = await built(p, 'allow_once');
    expect(await again.runs()).toBe(true);
    expect(again.asked).toHaveLength(1);
    // nobody to ask (print mode) and nothing remembered: it does not run
    expect(await (await built(p)).runs()).toBe(false);
  });

  it('/skills answers while a turn runs (the TUI does not queue it behind the turn)', async () => {
    const { cap } = await built(project(), 'deny');
    expect(cap.commands?.find((c) => c.name === 'skills')?.whileBusy).toBe(true);
  });

  it('/skills says a skill named like a command is not /name, from the names the run merged its commands with', async () => {
    const { cap } = await built(project(), 'deny');
    const list = async () => {
      const session = { currentConfig: { model: { contextWindow: 200_000 } }, messages: () => [] } as unknown as CommandSession;
      const out = await cap.commands!.find((c) => c.name === 'skills')!.run(session, '', new AbortController().signal);
      return out?.kind === 'text' ? out.text : '';
    };
    expect(await list()).toContain('/deploy, model');
    cap.customCommands!([], ['help', 'deploy']);
    // mutation: dropping `commandNames = builtIn` (skills/capability.ts) still offers /deploy
    expect(await list()).toContain('not /deploy (the built-in command runs), model');
  });
});
