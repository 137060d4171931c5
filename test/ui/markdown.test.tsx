import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { renderMarkdown } from '../../src/ui/markdown.js';
import { FakeController, msg, renderApp, text } from './helpers.js';

afterEach(() => cleanup());

const plain = (md: string, width = 80): string => renderMarkdown(md, { width, color: false });

describe('Markdown rendering', () => {
  it('headings keep a marker without colour', () => {
    const out = plain('# Title\n\n## Section\n\nbody');
    expect(out).toContain('# Title');
    expect(out).toContain('## Section');
    expect(out).toContain('body');
  });

  it('lists become bullets and numbers, with inline formatting rendered', () => {
    const out = plain('- read `src/a.ts` and **fix** it\n- second\n\n1. one\n2. two');
    expect(out).toContain('* read `src/a.ts` and fix it');
    expect(out).toContain('* second');
    expect(out).toContain('1. one');
    expect(out).toContain('2. two');
    expect(out).not.toContain('**');
  });

  it('code blocks are indented, fences gone, contents verbatim', () => {
    const out = plain('Before\n\n```ts\nconst x: number = 1;\nif (x) {\n  go();\n}\n```\n\nAfter');
    expect(out).not.toContain('```');
    expect(out).toContain('  const x: number = 1;');
    expect(out).toContain('    go();');
  });

  it('code blocks are highlighted when colour is on', () => {
    const out = renderMarkdown('```js\nconst a = "s";\n```', { width: 80, color: true });
    // cli-highlight only colours when chalk has a colour level: in a test run it may not.
    expect(out.replace(/\u001b\[[\d;]*m/g, '')).toContain('const a = "s";');
  });

  it('reflows paragraphs to the width', () => {
    const out = plain('word '.repeat(40).trim(), 40);
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('strips escape sequences the model wrote', () => {
    const out = renderMarkdown('hi \u001b]0;title\u0007there \u001b[2J**bold**', { width: 80, color: true });
    expect(out).not.toMatch(/\u001b\]|\u001b\[2J|\u0007/);
    expect(out.replace(/\u001b\[[\d;]*m/g, '')).toContain('hi there bold');
  });

  it('the app renders assistant messages as Markdown', async () => {
    const c = new FakeController();
    c.transcript = [msg('user', [text('explain')]), msg('assistant', [text('## Steps\n\n- run `npm test`\n- read the **output**')])];
    const app = renderApp(c);
    await app.waitForText('Steps');
    const f = app.frame();
    expect(f).toMatch(/\* run .?npm test/);
    expect(f).toContain('read the output');
    expect(f).not.toContain('**output**');
  });
});
