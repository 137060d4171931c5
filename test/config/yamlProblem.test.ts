import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { yamlProblem } from '../../src/config/yamlProblem.js';

// A frontmatter's YAML error in one line (skills, agent files and custom commands all say it so).

const problemOf = (text: string): string => {
  try {
    parse(text);
  } catch (e) {
    return yamlProblem(e);
  }
  throw new Error('the YAML parsed');
};

describe('yamlProblem', () => {
  it("names where the range the parser points at starts, in the file's numbering, and the line it is on", () => {
    // the parser points at a range (column 14 to 15 here): its start is the place told
    expect(problemOf('name: deploy\ndescription: Use when: the thing\nother: [x\n')).toMatch(
      /^Nested mappings are not allowed in compact mappings at line 3, column 14 \(`description: Use when: the thing`\)$/,
    );
  });

  it('a message without a position or a source line is said as it is', () => {
    expect(yamlProblem(new Error('something broke'))).toBe('something broke');
    expect(yamlProblem('a string thrown')).toBe('a string thrown');
  });
});
