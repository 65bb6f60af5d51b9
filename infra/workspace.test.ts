// The shared workspace path helpers agree with the tool activity's, and keep attachments in the session's own
// attachment directory, outside its workspace.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionDirName as toolsSessionDirName, workspaceDirFor } from '../activities/tools/activities.ts';
import {
  attachmentDirFor,
  attachmentsDirOfWorkspace,
  sessionAttachmentsDir,
  isInside,
  safeFileName,
  sessionDirName,
  sessionWorkspaceDir,
} from './workspace.ts';

describe('workspace paths', () => {
  it('name session directories exactly as the tool activity does', () => {
    for (const id of ['demo', 'discord:123', '.', '..', 'a/b', 'x y%z', 'ü-ß', 'a.b_c-d']) {
      expect(sessionDirName(id)).toBe(toolsSessionDirName(id));
      expect(sessionWorkspaceDir('/data', id)).toBe(workspaceDirFor('/data', id));
    }
  });

  it("keep attachment folders and file names inside the session's attachment directory, outside the workspace", () => {
    expect(attachmentsDirOfWorkspace(sessionWorkspaceDir('/data', 'discord:1'))).toBe(
      sessionAttachmentsDir('/data', 'discord:1'),
    );
    expect(attachmentsDirOfWorkspace('/tmp/elsewhere')).toBeUndefined();
    for (const messageId of ['m1', '..', '.', '../../etc', 'a/b', '']) {
      const dir = attachmentDirFor('/data', 's', messageId);
      expect(isInside('/data/attachments/s', dir), messageId).toBe(true);
      expect(isInside('/data/workspaces', dir), messageId).toBe(false);
      expect(isInside(dir, path.join(dir, safeFileName('../../../etc/passwd')))).toBe(true);
    }
    expect(safeFileName('.bashrc')).toBe('_bashrc');
    expect(isInside('/data/w', '/data/w')).toBe(false);
    expect(isInside('/data/w', '/data/w2/x')).toBe(false);
    expect(isInside('/data/w', '/data/w/../x')).toBe(false);
    expect(isInside('/data/w', '/data/w/..x')).toBe(true);
  });
});
