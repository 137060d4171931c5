import { describe, expect, it } from 'vitest';
import { traitsOf } from '../../src/tools/kinds.js';
import { registerSecret } from '../../src/log.js';
import { createTools, toolByName, toolSpecs } from '../../src/tools/registry.js';
import { call, ctx, tree } from './helpers.js';

const bashOpts = { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 };

describe('tool registry', () => {
  it('creates the seven tools with their traits', () => {
    const tools = createTools({ bash: bashOpts });
    expect(tools.map((t) => [t.name, t.kind, traitsOf(t).readOnly, traitsOf(t).compactable, traitsOf(t).spills])).toEqual([
      ['FileRead', 'read', true, true, true],
      ['Edit', 'edit', false, true, true],
      ['Write', 'edit', false, true, true],
      ['Bash', 'execute', false, true, true],
      ['Grep', 'read', true, true, true],
      ['Glob', 'read', true, true, true],
      ['Recall', 'read', true, true, false],
    ]);
    expect(toolByName(tools, 'Grep')?.name).toBe('Grep');
    expect(traitsOf(toolByName(tools, 'Edit')!).editsFiles).toBe(true);
    expect(toolByName(tools, 'Write')?.preview).toBeTypeOf('function');
    expect(toolByName(tools, 'NotebookEdit')).toBeUndefined();
  });

  it('gives providers clean JSON schemas', () => {
    const specs = toolSpecs(createTools({ bash: bashOpts }));
    const required = Object.fromEntries(specs.map((s) => [s.name, s.inputSchema.required ?? []]));
    expect(required).toEqual({
      FileRead: ['path'],
      Edit: ['path', 'old_string', 'new_string'],
      Write: ['path', 'content'],
      Bash: ['command'],
      Grep: ['pattern'],
      Glob: ['pattern'],
      Recall: [],
    });
    for (const s of specs) {
      expect(s.inputSchema.type).toBe('object');
      const json = JSON.stringify(s.inputSchema);
      expect(json).not.toContain('$schema');
      expect(json).not.toContain('9007199254740991');
      expect(s.description.length).toBeGreaterThan(200);
      for (const [field, prop] of Object.entries(s.inputSchema.properties ?? {})) {
        expect((prop as { description?: string }).description, `${s.name}.${field}`).toBeTruthy();
      }
    }
    const grep = specs.find((s) => s.name === 'Grep')!;
    expect((grep.inputSchema.properties as Record<string, { enum?: string[] }>)['outputMode']?.enum).toEqual(['files', 'lines', 'count']);
  });

  it('puts the configured Bash limits in the description', () => {
    const bash = toolByName(createTools({ bash: { timeoutMs: 45_000, maxTimeoutMs: 300_000, maxOutputChars: 12_000 } }), 'Bash')!;
    expect(bash.description).toContain('after 45s');
    expect(bash.description).toContain('at most 300s');
    expect(bash.description).toContain('12,000 characters');
  });

  it('redacts secrets from every tool output', async () => {
    registerSecret('sk-ant-api03-registry-test-secret-value');
    const root = tree({ '.env': 'ANTHROPIC_API_KEY=sk-ant-api03-registry-test-secret-value\n' });
    const tools = createTools({ bash: bashOpts });
    const viaBash = await call(toolByName(tools, 'Bash')!, { command: 'cat .env' }, ctx(root));
    expect(viaBash.content).toBe('ANTHROPIC_API_KEY=[redacted]');
    const viaRead = await call(toolByName(tools, 'FileRead')!, { path: '.env' }, ctx(root));
    expect(viaRead.content).toBe('     1\tANTHROPIC_API_KEY=[redacted]');
    const custom = createTools({ bash: bashOpts, redact: (t) => t.replace(/hunter2/g, '***') });
    expect((await call(toolByName(custom, 'Bash')!, { command: 'echo pw=hunter2' }, ctx(root))).content).toBe('pw=***');
  });
});
