/**
 * What is wrong with a model's tool-call arguments that are not one JSON object, said so that the model can send
 * the call again correctly: several objects glued together, a stray character after the object, a truncated
 * object, or a value of another type. The answer goes to the model as the call's error result; the turn goes on.
 */

/**
 * The problem with `raw`, the arguments as the provider sent them (the text when it did not parse, else the
 * parsed value), in one sentence; `detail` is the parser's or validator's message, appended when useful.
 */
export function toolArgumentsProblem(raw: unknown, detail?: string): string {
  if (typeof raw !== 'string') {
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw))
      return `the arguments do not match the tool's parameters${detail ? `: ${detail}` : ''}`;
    const kind = Array.isArray(raw) ? 'a JSON array' : raw === null ? 'null' : `a JSON ${typeof raw}`;
    return `the arguments are ${kind}, not one JSON object`;
  }
  const text = raw.trim();
  const end = endOfFirstValue(text);
  if (end === null) {
    return text.startsWith('{')
      ? `the arguments are truncated: the JSON object is not complete (${text.length} characters received)`
      : `the arguments are not JSON${detail ? ` (${detail})` : ''}`;
  }
  const rest = text.slice(end).trimStart();
  if (rest.startsWith('{'))
    return 'the arguments are several JSON objects glued together; send exactly one JSON object';
  if (rest !== '')
    return `the arguments have a stray "${rest.slice(0, 10)}" after the JSON object at position ${end}`;
  return `the arguments are not one valid JSON object${detail ? ` (${detail})` : ''}`;
}

/** Index just past the first complete JSON object or array at the start of `text`, or null when there is none. */
function endOfFirstValue(text: string): number | null {
  if (!text.startsWith('{') && !text.startsWith('[')) return null;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return null;
}
