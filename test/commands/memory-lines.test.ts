import { describe, expect, it } from 'vitest';
import { memoryText } from '../../src/commands/instructionsText.js';

// /memory counts a file's lines as an editor does (issue 26): the newline that ends the last line
// starts no line of its own.

describe('/memory line counts', () => {
  it('counts the lines of files with and without a final newline', () => {
    const text = memoryText(
      [
        { path: '/p/AGENTS.md', scope: 'project', text: 'one\ntwo\nthree\n', truncated: false },
        { path: '/p/sub/AGENTS.md', scope: 'project', text: 'one\ntwo', truncated: false },
        { path: '/h/AGENTS.md', scope: 'personal', text: 'only line\n', truncated: false },
      ],
      '/h',
    );
    expect(text).toContain('/p/AGENTS.md (project, 3 lines)');
    expect(text).toContain('/p/sub/AGENTS.md (project, 2 lines)');
    expect(text).toContain('/h/AGENTS.md (personal, 1 line)');
  });
});
