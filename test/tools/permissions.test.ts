import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PermissionPolicy, bashAllowedByPrefixes, prefixWords, scopeAllowedBy } from '../../src/tools/permissions.js';
import { joinWords, splitCommand } from '../../src/tools/shellWords.js';

const bash = { name: 'Bash', kind: 'execute' } as const;
const fileRead = { name: 'FileRead', kind: 'read' } as const;
const writeTool = { name: 'Write', kind: 'execute' } as const;
const policy = (cfg: Partial<{ mode: 'ask' | 'allow' | 'deny'; allowTools: string[]; allowBash: string[] }> = {}, saved?: unknown) =>
  new PermissionPolicy({ mode: 'ask', allowTools: [], allowBash: [], readPaths: [], ...cfg }, saved);
const decideBash = (p: PermissionPolicy, command: string) => p.decide(bash, { command });

describe('PermissionPolicy.decide', () => {
  it('never asks for read-only tools, whatever the mode', () => {
    for (const mode of ['ask', 'allow', 'deny'] as const) expect(policy({ mode }).decide(fileRead, { path: 'x' })).toBe('allow');
  });

  it('asks, allows or denies the rest by mode', () => {
    expect(decideBash(policy({ mode: 'ask' }), 'ls')).toBe('ask');
    expect(decideBash(policy({ mode: 'allow' }), 'rm -rf build')).toBe('allow');
    expect(decideBash(policy({ mode: 'deny' }), 'ls')).toBe('deny');
    expect(policy({ mode: 'ask' }).decide(writeTool, {})).toBe('ask');
    expect(policy({ mode: 'deny' }).decide(writeTool, {})).toBe('deny');
  });

  it('allows tools listed in allowTools in ask and deny modes', () => {
    expect(decideBash(policy({ allowTools: ['Bash'] }), 'anything at all')).toBe('allow');
    expect(policy({ mode: 'deny', allowTools: ['Write'] }).decide(writeTool, {})).toBe('allow');
  });

  it('matches Bash prefixes on whole words', () => {
    const p = policy({ allowBash: ['git status', 'npm test'] });
    expect(decideBash(p, 'git status')).toBe('allow');
    expect(decideBash(p, 'git status -s')).toBe('allow');
    expect(decideBash(p, '  git   status  --short ')).toBe('allow');
    expect(decideBash(p, 'git statusx')).toBe('ask');
    expect(decideBash(p, 'git')).toBe('ask');
    expect(decideBash(p, 'git push')).toBe('ask');
    expect(decideBash(p, 'npm test -- --run')).toBe('allow');
    expect(decideBash(p, 'npm testing')).toBe('ask');
    expect(decideBash(p, 'FOO=1 git status')).toBe('ask');
  });

  it('never lets an allowed prefix carry another command', () => {
    const p = policy({ allowBash: ['git status'] });
    for (const command of [
      'git status; rm -rf ~',
      'git status && rm -rf ~',
      'git status || rm -rf ~',
      'git status | sh',
      'git status & rm -rf ~',
      'git status |& tee x',
      'git status\nrm -rf ~',
      'git status `rm -rf ~`',
      'git status $(rm -rf ~)',
      'git status "$(rm -rf ~)"',
      'git status "`rm -rf ~`"',
      'git status $((1+1))',
      'git status > ~/.bashrc',
      'git status >> log',
      'git status 2> err.txt',
      'git status &> out',
      'git status >| f',
      'git status < /etc/passwd',
      'git status <<EOF\nx\nEOF',
      'git status <(rm -rf ~)',
      'git status >(rm -rf ~)',
      '(git status)',
      'git status; (rm -rf ~)',
      "git status 'unterminated",
      "git status $'\\x3b' rm",
      'git status ${X:-$(rm -rf ~)}',
    ]) {
      expect(decideBash(p, command), command).toBe('ask');
    }
  });

  it('allows a compound command when every part is allowed, and harmless redirections', () => {
    const p = policy({ allowBash: ['git status', 'git diff', 'head'] });
    expect(decideBash(p, 'git status && git diff --stat')).toBe('allow');
    expect(decideBash(p, 'git diff | head -20')).toBe('allow');
    expect(decideBash(p, 'git status 2>&1')).toBe('allow');
    expect(decideBash(p, 'git status >/dev/null 2>&1; git diff 2> /dev/null')).toBe('allow');
    expect(decideBash(p, 'git status # a comment; rm is not run')).toBe('allow');
    expect(decideBash(p, 'git diff \'a b\' "c;d" e\\;f')).toBe('allow');
    expect(decideBash(p, 'git diff | wc -l')).toBe('ask');
  });

  it('accepts prefixes written with a trailing :* or *', () => {
    expect(decideBash(policy({ allowBash: ['npm run test:*'] }), 'npm run test --watch')).toBe('allow');
    expect(decideBash(policy({ allowBash: ['cargo build *'] }), 'cargo build --release')).toBe('allow');
    expect(prefixWords('   ')).toBeUndefined();
    expect(decideBash(policy({ allowBash: ['   '] }), 'anything')).toBe('ask');
    expect(decideBash(policy({ allowBash: ['ls; rm'] }), 'ls')).toBe('ask');
  });

  it('ignores input without a command', () => {
    expect(policy({ allowBash: ['ls'] }).decide(bash, { nope: 1 })).toBe('ask');
    expect(policy({ allowBash: ['ls'] }).decide(bash, null)).toBe('ask');
  });

  it('no allowed prefix ever allows a command chained to a disallowed one (property)', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/);
    const op = fc.constantFrom(';', '&&', '||', '|', '&', '\n', ' ; ', ' && ');
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 3 }),
        fc.array(word, { maxLength: 3 }),
        op,
        fc.array(word, { minLength: 1, maxLength: 3 }),
        (prefix, args, sep, evil) => {
          fc.pre(!evil.slice(0, prefix.length).every((w, i) => w === prefix[i]) || evil.length < prefix.length);
          const p = policy({ allowBash: [prefix.join(' ')] });
          const safe = [...prefix, ...args].join(' ');
          return decideBash(p, safe) === 'allow' && decideBash(p, `${safe}${sep}${evil.join(' ')}`) === 'ask';
        },
      ),
    );
  });
});

describe('PermissionPolicy session memory', () => {
  it('remembers "allow this prefix" and "allow this tool", not once or deny', () => {
    const p = policy();
    p.remember(bash, { kind: 'allow_once' });
    p.remember(bash, { kind: 'deny', note: 'no' });
    expect(decideBash(p, 'npm test')).toBe('ask');
    p.remember(bash, { kind: 'allow_prefix', prefix: 'npm test' });
    expect(decideBash(p, 'npm test -- -t foo')).toBe('allow');
    expect(decideBash(p, 'npm install')).toBe('ask');
    p.remember('Write', { kind: 'allow_tool' });
    expect(p.decide(writeTool, {})).toBe('allow');
  });

  it('lists config rules and session choices', () => {
    const p = policy({ allowTools: ['Write'], allowBash: ['git status', 'a; b'] });
    p.remember(bash, { kind: 'allow_prefix', prefix: 'npm test' });
    p.remember(bash, { kind: 'allow_prefix', prefix: 'npm test' });
    p.remember('Edit', { kind: 'allow_tool' });
    expect(p.rules()).toEqual([
      { source: 'config', rule: 'Write' },
      { source: 'config', rule: 'Bash(git status)' },
      { source: 'config', rule: 'Bash(a; b) — not a plain command, never matches' },
      { source: 'session', rule: 'Edit' },
      { source: 'session', rule: 'Bash(npm test)' },
    ]);
    expect(p.mode).toBe('ask');
  });

  it('round-trips its session state, ignoring malformed saved data', () => {
    const p = policy();
    p.remember(bash, { kind: 'allow_prefix', prefix: 'make' });
    p.remember('Write', { kind: 'allow_tool' });
    const restored = policy({}, JSON.parse(JSON.stringify(p.sessionState())));
    expect(decideBash(restored, 'make all')).toBe('allow');
    expect(restored.decide(writeTool, {})).toBe('allow');
    expect(policy({}, { tools: 'Bash', bashPrefixes: [1, null] }).sessionState()).toEqual({ tools: [], bashPrefixes: [] });
    expect(policy({}, 'garbage').sessionState()).toEqual({ tools: [], bashPrefixes: [] });
  });
});

describe('PermissionPolicy.suggestPrefix', () => {
  const p = policy();
  it('names the subcommand for tools that have them', () => {
    expect(p.suggestPrefix('git commit -m "fix: x"')).toBe('git commit');
    expect(p.suggestPrefix('npm run build -- --watch')).toBe('npm run build');
    expect(p.suggestPrefix('npm install left-pad')).toBe('npm install');
    expect(p.suggestPrefix('cargo --version')).toBe('cargo');
    expect(p.suggestPrefix('docker compose up -d')).toBe('docker compose');
  });
  it('uses the first word otherwise, the whole command for interpreters and wrappers', () => {
    expect(p.suggestPrefix('ls -la src')).toBe('ls');
    expect(p.suggestPrefix('python3 scripts/gen.py --out x')).toBe('python3 scripts/gen.py --out x');
    expect(p.suggestPrefix('sudo apt install x')).toBe('sudo apt install x');
    expect(p.suggestPrefix('rm -rf "my dir"')).toBe("rm -rf 'my dir'");
  });
  it('suggests nothing for a line that is not one simple command (only "allow once" is offered)', () => {
    expect(p.suggestPrefix('git log --oneline | head')).toBeUndefined();
    expect(p.suggestPrefix('echo $(date)')).toBeUndefined();
    expect(p.suggestPrefix('for f in *.ts; do echo $f; done')).toBeUndefined();
    expect(p.suggestPrefix('while true; do sleep 1; done')).toBeUndefined();
    expect(p.suggestPrefix('if [ -f a ]; then cat a; fi')).toBeUndefined();
    expect(p.suggestPrefix('X=1 npm test')).toBeUndefined();
    expect(p.suggestPrefix('cat a > b')).toBeUndefined();
  });
  it('suggests prefixes that allow the command they came from', () => {
    for (const command of ['git commit -m "a b"', 'python3 -c "print(1)"', 'node x.js', 'ls', 'npm run test:unit']) {
      const q = policy();
      q.remember(bash, { kind: 'allow_prefix', prefix: p.suggestPrefix(command)! });
      expect(decideBash(q, command), command).toBe('allow');
    }
  });
});

describe('splitCommand', () => {
  it('splits into simple commands of unquoted words', () => {
    expect(splitCommand(`a 'b c' "d \\"e\\"" f\\ g; h && i | j`)).toEqual({ ok: true, parts: [['a', 'b c', 'd "e"', 'f g'], ['h'], ['i'], ['j']] });
    expect(splitCommand('a \\\n b')).toEqual({ ok: true, parts: [['a', 'b']] });
    expect(splitCommand('echo a#b # c')).toEqual({ ok: true, parts: [['echo', 'a#b']] });
    expect(splitCommand('x 2>&1 >/dev/null')).toEqual({ ok: true, parts: [['x']] });
    expect(splitCommand('echo 2 >/dev/null')).toEqual({ ok: true, parts: [['echo', '2']] });
  });
  it('names what it refuses', () => {
    expect(splitCommand('a $(b)')).toEqual({ ok: false, reason: 'command substitution' });
    expect(splitCommand('a > f')).toEqual({ ok: false, reason: 'output redirection to a file' });
    expect(splitCommand('(a)')).toEqual({ ok: false, reason: 'a subshell' });
  });
  it('joinWords quotes so that splitting gives the words back', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), (words) => {
        const split = splitCommand(joinWords(words));
        return split.ok && JSON.stringify(split.parts) === JSON.stringify([words]);
      }),
    );
  });
});

describe('bashAllowedByPrefixes', () => {
  it('needs at least one command', () => {
    expect(bashAllowedByPrefixes('', [['ls']])).toBe(false);
    expect(bashAllowedByPrefixes(';', [['ls']])).toBe(false);
  });
});

describe('PermissionPolicy for edit tools', () => {
  const editTool = { name: 'Edit', kind: 'edit' } as const;
  const inside = { abs: '/repo/src/a.ts', cwd: '/repo' };
  const outside = { abs: '/etc/hosts', cwd: '/repo' };
  it('asks in ask mode, runs in acceptEdits and allow, is refused in deny', () => {
    expect(policy({ mode: 'ask' }).decide(editTool, {}, inside)).toBe('ask');
    expect(new PermissionPolicy({ mode: 'acceptEdits', allowTools: [], allowBash: [], readPaths: [] }).decide(editTool, {}, inside)).toBe('allow');
    expect(policy({ mode: 'allow' }).decide(editTool, {}, inside)).toBe('allow');
    expect(policy({ mode: 'deny' }).decide(editTool, {}, inside)).toBe('deny');
  });
  it('acceptEdits still asks for Bash', () => {
    expect(decideBash(new PermissionPolicy({ mode: 'acceptEdits', allowTools: [], allowBash: [], readPaths: [] }), 'ls')).toBe('ask');
  });
  it('a path outside the working directory asks in every mode but allow (and deny)', () => {
    expect(new PermissionPolicy({ mode: 'acceptEdits', allowTools: [], allowBash: [], readPaths: [] }).decide(editTool, {}, outside)).toBe('ask');
    expect(policy({ allowTools: ['Edit'] }).decide(editTool, {}, outside)).toBe('ask');
    expect(policy({ mode: 'allow' }).decide(editTool, {}, outside)).toBe('allow');
    expect(policy({ mode: 'deny' }).decide(editTool, {}, outside)).toBe('deny');
  });
  it('"accept edits for the session" switches ask to acceptEdits; Shift+Tab cycles ask → acceptEdits → plan → deny (allow only when started in it)', () => {
    const p = policy();
    p.remember(editTool, { kind: 'accept_edits' });
    expect(p.mode).toBe('acceptEdits');
    expect(p.decide(editTool, {}, inside)).toBe('allow');
    expect(policy().cycleModes()).toEqual(['ask', 'acceptEdits', 'plan', 'deny']);
    expect(policy({ mode: 'allow' }).cycleModes()).toEqual(['ask', 'acceptEdits', 'plan', 'allow', 'deny']);
  });
});

describe('scoped permissions (WebFetch per domain)', () => {
  const webFetch = {
    name: 'WebFetch',
    kind: 'fetch' as const,
    traits: { readOnly: false },
    permissionScope: (i: unknown) => `domain:${new URL((i as { url: string }).url).hostname}`,
  };
  const call = (url: string) => ({ url, prompt: '' });

  it('allows a domain listed as WebFetch(domain:host) or by a * pattern, asks for any other', () => {
    const p = new PermissionPolicy({ mode: 'ask', allowTools: ['WebFetch(domain:docs.rs)', 'WebFetch(domain:*.github.io)'], allowBash: [], readPaths: [] });
    expect(p.decide(webFetch, call('https://docs.rs/x'))).toBe('allow');
    expect(p.decide(webFetch, call('https://me.github.io/'))).toBe('allow');
    // mutation: matching the rule by tool name alone allows this
    expect(p.decide(webFetch, call('https://evil.example/'))).toBe('ask');
    expect(scopeAllowedBy(['WebFetch(domain:docs.rs)'], 'WebFetch', 'domain:docs.rs.evil.example')).toBe(false);
  });

  it('remembers "for this session" for the domain asked about, not the whole tool, and saves it', () => {
    const p = new PermissionPolicy({ mode: 'ask', allowTools: [], allowBash: [], readPaths: [] });
    p.remember(webFetch, { kind: 'allow_tool' }, 'domain:docs.rs');
    expect(p.decide(webFetch, call('https://docs.rs/a'))).toBe('allow');
    expect(p.decide(webFetch, call('https://npmjs.com/'))).toBe('ask');
    const resumed = new PermissionPolicy({ mode: 'ask', allowTools: [], allowBash: [], readPaths: [] }, p.sessionState());
    expect(resumed.decide(webFetch, call('https://docs.rs/b'))).toBe('allow');
  });
});
