/** The problem named for tool-call arguments that are not one JSON object (domain/tool-arguments.ts). */
import { describe, expect, it } from 'vitest';
import { toolArgumentsProblem } from './tool-arguments.ts';

describe('toolArgumentsProblem', () => {
  it.each([
    ['{"a":1}{"b":2}', /several JSON objects glued together/],
    ['{"a":1} {"b":2}', /several JSON objects glued together/],
    ['{"a":1}}', /stray "\}" after the JSON object at position 7/],
    ['{"a":"x}', /truncated/],
    ['{"a":{"b":1}', /truncated/],
    ['command: ls', /not JSON/],
    ['{"a":"}{"}x', /stray "x"/],
  ])('%s', (raw, problem) => {
    expect(toolArgumentsProblem(raw)).toMatch(problem);
  });

  it('names values of another type and objects that do not fit the parameters', () => {
    expect(toolArgumentsProblem([1, 2])).toBe('the arguments are a JSON array, not one JSON object');
    expect(toolArgumentsProblem(3)).toBe('the arguments are a JSON number, not one JSON object');
    expect(toolArgumentsProblem({ x: 1 }, 'command is required')).toBe(
      "the arguments do not match the tool's parameters: command is required",
    );
  });
});
