import { describe, expect, it } from 'vitest';
import { liveTargetFromFlags, liveWords, splitCommand } from '../../bin/live-target.js';
import { UsageError } from '../../bin/usage-error.js';

describe('--server and --url', () => {
  it('splits a command line as a shell would for words and quotes', () => {
    expect(splitCommand(`node  "my server.js" --name 'a b' c\\ d "x\\"y"`)).toEqual([
      'node',
      'my server.js',
      '--name',
      'a b',
      'c d',
      'x"y',
    ]);
    expect(() => splitCommand(`node 'open`)).toThrow(UsageError);
  });

  it('names the target again in a replay command, the headers left out', () => {
    const server = liveTargetFromFlags({ server: `node "my server.js"` });
    expect(server).toEqual({ command: 'node', args: ['my server.js'] });
    if (!server) throw new Error('no target');
    const words = liveWords(server);
    expect(splitCommand(splitCommand(words.join(' '))[1] ?? '')).toEqual(['node', 'my server.js']);
    const url = liveTargetFromFlags({
      url: 'http://127.0.0.1:9/mcp',
      header: ['Authorization: Bearer s3cret'],
    });
    expect(url).toEqual({
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
    if (!url) throw new Error('no target');
    expect(liveWords(url).join(' ')).not.toContain('s3cret');
  });

  it('refuses a header that is not Name: value without quoting it', () => {
    expect(() =>
      liveTargetFromFlags({ url: 'http://127.0.0.1:9/mcp', header: ['s3cret-token'] }),
    ).toThrow(/--header #1 must be 'Name: value'/);
    try {
      liveTargetFromFlags({ url: 'http://127.0.0.1:9/mcp', header: ['s3cret-token'] });
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
    }
  });
});
