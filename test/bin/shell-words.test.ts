import { describe, expect, it } from 'vitest';
import { shellWords } from '../../bin/shell-words.js';

describe('shellWords', () => {
  it('splits on blanks and keeps quoted words whole, with no expansion', () => {
    expect(
      shellWords(`node  'my server.js' --name "a \\"b\\" c" it\\'s $HOME '' *`, '--server'),
    ).toEqual(['node', 'my server.js', '--name', 'a "b" c', "it's", '$HOME', '', '*']);
  });

  it('refuses an unclosed quote and an empty command in one line naming the flag', () => {
    expect(() => shellWords(`node 'server.js`, '--server')).toThrow(/^--server: unclosed ' in/);
    expect(() => shellWords('   ', '--server')).toThrow(/^--server must name a command/);
  });
});
