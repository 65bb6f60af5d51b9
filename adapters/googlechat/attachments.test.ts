/**
 * Pure parts of Google Chat attachments: the size-limit variable, the attachment names and Drive links, the
 * prompt lines for stored, linked and refused files, and the user's refusal notice.
 */
import { describe, expect, it } from 'vitest';
import { attachmentNameOf, driveLinkOf } from './attachments.ts';
import { DEFAULT_ATTACHMENT_MAX_BYTES, googleChatConfigSchema } from './config.ts';
import { attachmentLine, formatBytes, formatInboundContent } from './format.ts';
import { refusalText } from './ingress.ts';

describe('Google Chat attachments (pure parts)', () => {
  it('reads GOOGLE_CHAT_ATTACHMENT_MAX_BYTES (25 MiB by default) and names a bad value', () => {
    expect(googleChatConfigSchema.parse({}).GOOGLE_CHAT_ATTACHMENT_MAX_BYTES).toBe(
      DEFAULT_ATTACHMENT_MAX_BYTES,
    );
    expect(
      googleChatConfigSchema.parse({ GOOGLE_CHAT_ATTACHMENT_MAX_BYTES: '1024' })
        .GOOGLE_CHAT_ATTACHMENT_MAX_BYTES,
    ).toBe(1024);
    for (const bad of ['0', '-1', '1.5', 'lots']) {
      const r = googleChatConfigSchema.safeParse({ GOOGLE_CHAT_ATTACHMENT_MAX_BYTES: bad });
      expect(r.success, bad).toBe(false);
      expect(JSON.stringify(r.error?.issues)).toContain('GOOGLE_CHAT_ATTACHMENT_MAX_BYTES');
    }
  });

  it('names an attachment by its content name, else its resource name, else its position', () => {
    expect(attachmentNameOf({ contentName: 'a.txt', name: 'spaces/S/messages/M/attachments/X' }, 0)).toBe(
      'a.txt',
    );
    expect(attachmentNameOf({ name: 'spaces/S/messages/M/attachments/X' }, 0)).toBe('X');
    expect(attachmentNameOf({}, 2)).toBe('attachment-3');
    expect(driveLinkOf('a b/c')).toBe('https://drive.google.com/open?id=a%20b%2Fc');
  });

  it('writes one prompt line per stored, linked or refused file, stored paths relative to the workspace', () => {
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MiB');
    expect(
      attachmentLine(
        { name: 'r.csv', content_type: 'text/csv', size: 2048, path: '/data/ws/s/attachments/m/0-r.csv' },
        '/data/ws/s',
      ),
    ).toBe('[Attachment: r.csv (text/csv, 2 KiB) saved at attachments/m/0-r.csv]');
    expect(attachmentLine({ name: 'Plan', url: 'https://drive.google.com/open?id=1' })).toBe(
      '[Attachment: Plan, a Google Drive file, not downloaded: https://drive.google.com/open?id=1]',
    );
    const content = formatInboundContent({
      displayName: 'Alice',
      userName: 'users/1',
      at: new Date('2026-05-27T12:50:00Z'),
      text: '',
      attachments: [],
      refused: [{ name: 'big]\nfile', reason: 'it is larger than the 1 KiB limit' }],
    });
    expect(content).toBe(
      '`Alice` (users/1) at `2026-05-27 12:50:00 UTC`:\n[Attachment: big  file, not taken: it is larger than the 1 KiB limit]',
    );
  });

  it('tells the user which files were not taken and whether the rest went on', () => {
    expect(refusalText([{ name: 'a.zip', reason: 'it is larger than the 25 MiB limit' }], false)).toBe(
      '⚠️ I did not take the file a.zip: it is larger than the 25 MiB limit.\nNothing was passed on to the agent; ' +
        'send a smaller file, a text file or an image, or a Google Drive link.',
    );
    const two = refusalText(
      [
        { name: 'a', reason: 'r1' },
        { name: 'b', reason: 'r2' },
      ],
      true,
    );
    expect(two).toBe(
      '⚠️ I did not take these files:\n• a: r1\n• b: r2\nThe rest of your message was passed on without them.',
    );
  });
});
