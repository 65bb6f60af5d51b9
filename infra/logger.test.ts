// Log lines for a person (pretty, one readable line each) and for a collector (JSON); the format follows the
// terminal unless KESOKU_LOG_FORMAT says otherwise.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatOf } from './logger.ts';
import { loadConfig } from './config.ts';

function capture(): { stream: Writable & { write: Writable['write'] }; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => out };
}

describe('logger', () => {
  it('writes one readable line per entry in the pretty format, without task tokens or process ids', () => {
    const out = capture();
    const logger = createLogger('kesoku', 'info', [], { format: 'pretty', destination: out.stream });
    logger.child({ temporal: true }).warn({ attempt: 2, taskToken: 'Cg5zZWNyZXQ=' }, 'Activity failed');
    logger.warn('the model is not configured');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] WARN \(kesoku\): Activity failed \{"attempt":2\}$/);
    expect(lines[1]).toMatch(/WARN \(kesoku\): the model is not configured$/);
    expect(out.text()).not.toContain('"level"');
    expect(out.text()).not.toContain('taskToken');
  });

  it('keeps JSON lines in the json format', () => {
    const out = capture();
    createLogger('kesoku', 'info', [], { format: 'json', destination: out.stream }).warn({ a: 1 }, 'hello');
    expect(JSON.parse(out.text())).toMatchObject({ level: 40, name: 'kesoku', a: 1, msg: 'hello' });
  });

  it('is pretty on a terminal and JSON otherwise, unless KESOKU_LOG_FORMAT says which', () => {
    expect(logFormatOf({}, true)).toBe('pretty');
    expect(logFormatOf({}, false)).toBe('json');
    expect(logFormatOf({ KESOKU_LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormatOf({ KESOKU_LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(() => loadConfig({ KESOKU_LOG_FORMAT: 'yaml' })).toThrow(/KESOKU_LOG_FORMAT/);
  });
});
