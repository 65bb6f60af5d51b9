/**
 * Where the person writes: Enter sends, Shift+Enter makes a new line, Esc stops the running turn (handled by the
 * chat view for the whole page). Files come as attachments from the 📎 button, by drag and drop onto the chat, or
 * by pasting; each is checked against the API's limits before anything is uploaded (a file over the inline limit,
 * too many files, or a message over the body limit is refused here, naming the limit), then read as base64 and
 * sent with the message (README "REST API v1", Attachments).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { OutgoingAttachment } from './api.ts';
import { formatBytes } from './message.tsx';
import type { PageConfig } from './storage.tsx';

/** A file picked for the next message, read or being read. */
interface Picked {
  key: string;
  name: string;
  size: number;
  type: string;
  data: string | null;
}

export interface ComposerProps {
  limits: PageConfig['limits'];
  busy: boolean;
  disabled?: boolean;
  onSend: (content: string, attachments: OutgoingAttachment[]) => void;
  onStop: () => void;
  /** Files dropped on the chat (outside the composer), handed in by the chat view. */
  dropped?: { files: File[]; at: number } | null;
}

const utf8Length = (s: string) => new TextEncoder().encode(s).length;
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;
/** Room the JSON body needs besides the content and the files' data. */
const BODY_OVERHEAD = 2048;

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
}

export function Composer({ limits, busy, disabled, onSend, onStop, dropped }: ComposerProps) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<Picked[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const lastDrop = useRef(0);

  const bodyBytes = (content: string, list: readonly { size: number }[]) =>
    utf8Length(content) + list.reduce((n, f) => n + base64Length(f.size), 0) + BODY_OVERHEAD;

  /** Takes files unless a limit refuses them; says which limit. */
  const addFiles = (incoming: File[]) => {
    if (incoming.length === 0) return;
    const problems: string[] = [];
    const accepted: { picked: Picked; file: File }[] = [];
    const taken = () => [...files, ...accepted.map((a) => a.picked)];
    for (const f of incoming) {
      if (f.size > limits.attachmentBytes) {
        problems.push(
          `${f.name} is ${formatBytes(f.size)}: files are sent up to ${formatBytes(limits.attachmentBytes)} each`,
        );
        continue;
      }
      if (taken().length >= limits.attachments) {
        problems.push(`${f.name} not added: at most ${limits.attachments} files per message`);
        continue;
      }
      if (bodyBytes(text, [...taken(), f]) > limits.bodyBytes) {
        problems.push(
          `${f.name} not added: the files of one message share ${formatBytes(limits.bodyBytes)} (base64 included)`,
        );
        continue;
      }
      const key = `${f.name}-${f.size}-${Math.random().toString(36).slice(2)}`;
      accepted.push({ picked: { key, name: f.name, size: f.size, type: f.type, data: null }, file: f });
    }
    setProblem(problems.length > 0 ? problems.join('; ') : null);
    if (accepted.length === 0) return;
    setFiles((list) => [...list, ...accepted.map((a) => a.picked)]);
    for (const { picked, file } of accepted) {
      readBase64(file).then(
        (data) => setFiles((list) => list.map((x) => (x.key === picked.key ? { ...x, data } : x))),
        () => {
          setFiles((list) => list.filter((x) => x.key !== picked.key));
          setProblem(`${picked.name} could not be read`);
        },
      );
    }
  };

  useEffect(() => {
    if (!dropped || dropped.at === lastDrop.current) return;
    lastDrop.current = dropped.at;
    addFiles(dropped.files);
  }, [dropped]);

  const send = () => {
    const content = text.trim();
    if (content === '' && files.length === 0) return;
    if (files.some((f) => f.data === null)) {
      setProblem('still reading the files; send again in a moment');
      return;
    }
    if (utf8Length(content) > limits.contentBytes) {
      setProblem(
        `the message is ${formatBytes(utf8Length(content))}: messages are up to ${formatBytes(limits.contentBytes)}`,
      );
      return;
    }
    if (bodyBytes(content, files) > limits.bodyBytes) {
      setProblem(
        `the message with its files is over ${formatBytes(limits.bodyBytes)}, the most one message may carry`,
      );
      return;
    }
    const attachments: OutgoingAttachment[] = files.map((f) => ({
      name: f.name,
      size: f.size,
      data: f.data as string,
      ...(f.type ? { content_type: f.type } : {}),
    }));
    onSend(content, attachments);
    setText('');
    setFiles([]);
    setProblem(null);
  };

  return (
    <form
      class="composer"
      aria-label="Write a message"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {files.length > 0 && (
        <ul class="picked" aria-label="Files to send">
          {files.map((f) => (
            <li key={f.key}>
              📎 {f.name} <span class="dim">({formatBytes(f.size)})</span>
              {f.data === null && <span class="dim"> reading…</span>}
              <button
                type="button"
                class="link"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles((list) => list.filter((x) => x.key !== f.key))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <p id="composer-keys" class="hint dim">
        <kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>Esc</kbd> stops · drop or
        paste files to attach
      </p>
      <div class="row">
        <button
          type="button"
          class="icon"
          aria-label="Attach files"
          title="Attach files"
          onClick={() => input.current?.click()}
        >
          📎
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-hidden="true"
          tabIndex={-1}
          onChange={(e) => {
            const el = e.currentTarget;
            addFiles([...(el.files ?? [])]);
            el.value = '';
          }}
        />
        <textarea
          aria-label="Message"
          placeholder="Message Kesoku"
          aria-describedby="composer-keys"
          rows={1}
          value={text}
          disabled={disabled}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
          onPaste={(e) => {
            const pasted = [...(e.clipboardData?.files ?? [])];
            if (pasted.length > 0) {
              e.preventDefault();
              addFiles(pasted);
            }
          }}
        />
        {busy && (
          <button type="button" class="stop" onClick={onStop} aria-label="Stop the running turn (Esc)">
            ⏹ Stop
          </button>
        )}
        <button type="submit" class="primary" disabled={disabled} aria-label="Send">
          Send
        </button>
      </div>
    </form>
  );
}
