/**
 * Lists the longest functions of the given folders (production files only, `*.test.ts` skipped), longest first.
 *
 * Usage: `node bench/function-sizes.ts [--min N] [--top N] <folder>...` (defaults: min 40 lines, top 30).
 * A function is any declaration, method, accessor, arrow or function expression; its length is the number of
 * source lines from its first to its last line. Nested functions are listed on their own and also count
 * inside their parent, the way a reader sees them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One function of a source file and its length in lines. */
export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' ? [] : filesUnder(full);
    return full.endsWith('.ts') && !full.endsWith('.test.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** The functions of one file with their lengths. */
export function functionSizes(file: string): FunctionSize[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: FunctionSize[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: nameOf(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function main(argv: string[]) {
  let min = 40;
  let top = 30;
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--min') min = Number(argv[++i]);
    else if (argv[i] === '--top') top = Number(argv[++i]);
    else dirs.push(argv[i]!);
  }
  const sizes = dirs
    .flatMap(filesUnder)
    .flatMap(functionSizes)
    .filter((f) => f.lines >= min)
    .sort((a, b) => b.lines - a.lines)
    .slice(0, top);
  console.log('| function | location | lines |\n|---|---|---|');
  for (const f of sizes) console.log(`| \`${f.name}\` | \`${f.file}:${f.line}\` | ${f.lines} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
