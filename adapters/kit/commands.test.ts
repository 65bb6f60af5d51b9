// The chat-command rule's `/title` follows the session-title rule (domain/session-settings.ts): one limit, in code
// points, so a title `/title` accepts is one the API accepts and the other way round.
import { describe, expect, it } from 'vitest';
import { commandUsage, parseChatCommand } from './commands.ts';
import { TITLE_MAX_CHARS, titleProblem } from '../../domain/session-settings.ts';

describe('/title length', () => {
  it(`accepts ${TITLE_MAX_CHARS} code points (emoji count once), as the session-title rule does`, () => {
    const longest = '😀'.repeat(TITLE_MAX_CHARS);
    expect(titleProblem(longest)).toBeNull();
    expect(parseChatCommand(`/title ${longest}`)).toEqual({ name: 'title', title: longest });
  });

  it('refuses one more, as the session-title rule does, and the usage line names the limit', () => {
    const tooLong = 'a'.repeat(TITLE_MAX_CHARS + 1);
    expect(titleProblem(tooLong)).not.toBeNull();
    expect(parseChatCommand(`/title ${tooLong}`)).toEqual({ name: 'usage', command: 'title' });
    expect(commandUsage('title')).toContain(`1-${TITLE_MAX_CHARS} characters`);
  });
});
