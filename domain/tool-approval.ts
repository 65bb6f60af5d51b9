/**
 * Human approval of tool calls: which calls need a person's yes before they run, the auto-approve patterns,
 * and the shape of the approval record kept as `metadata.approval` on the tool_call message
 * (docs/message-model.md §3.3).
 *
 * Policies (`KESOKU_TOOL_APPROVAL`, per-session override):
 * - `off`: nothing asks;
 * - `writes`: `run_shell_command` and `write_file` ask, `read_file` never does;
 * - `all`: every tool call asks.
 *
 * Patterns are globs on a call's subject (the command string of a shell call, `write_file <path>`,
 * `read_file <path>`): `*` matches any run of characters except the shell's control and substitution characters
 * (`; & | < > ` $ ( )` and line breaks), `?` one such character, and a trailing ` *` also matches nothing (the
 * pattern `git status *` approves `git status`). So `ls *` approves `ls -la src` but never `ls; rm -rf ~` or
 * `ls $(rm -rf ~)`: a compound command is approved only by a pattern that spells its operators out. A wildcard
 * never approves a shell, interpreter, launcher, network or build tool ({@link EXACT_ONLY_PROGRAMS}): `bash *`
 * does not approve `bash -c 'rm -rf ~'`; only the exact command does.
 *
 * Pure module: safe in the workflow bundle.
 */

export const APPROVAL_POLICIES = ['off', 'writes', 'all'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export const APPROVAL_DECISIONS = ['approve', 'deny', 'always'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/**
 * States of `metadata.approval.state`: `pending` (waiting for a person), `approved`, `denied`, `timed_out` (no
 * decision within the timeout: counts as denied), `cancelled` (the turn ended — `/stop`, an interrupt, a
 * failure — before anyone decided).
 */
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'timed_out', 'cancelled'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** `metadata.approval` on a tool_call message. Times are ISO 8601. */
export interface ToolApproval {
  state: ApprovalState;
  /** What was asked about: the command of a shell call, `write_file <path>`, … (see {@link approvalSubject}). */
  subject: string;
  requested_at: string;
  /** When a pending approval times out. */
  expires_at?: string;
  /** When it was decided. */
  at?: string;
  /**
   * Who decided: a principal or platform user id (`api:alice`, `discord:1234`), `pattern` (an auto-approve
   * pattern matched), or `timeout`.
   */
  by?: string;
  /** The person's answer, when a person decided. */
  decision?: ApprovalDecision;
  /** The pattern that approved the call (auto-approval), or the one an `always` added to the session. */
  pattern?: string;
}

/** Tools that change something: they ask under the `writes` policy. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['run_shell_command', 'write_file']);

export function isApprovalPolicy(v: unknown): v is ApprovalPolicy {
  return typeof v === 'string' && (APPROVAL_POLICIES as readonly string[]).includes(v);
}

export function isApprovalDecision(v: unknown): v is ApprovalDecision {
  return typeof v === 'string' && (APPROVAL_DECISIONS as readonly string[]).includes(v);
}

/** The principal of the token-less local operator (api/auth.ts LOCAL_PRINCIPAL): the API without tokens. */
export const LOCAL_OPERATOR = 'local';

/**
 * The policy of a chatbot when neither `KESOKU_TOOL_APPROVAL` nor the session sets one: `writes` when its people
 * can decide an approval where they talk (`decides`: the REST API's approval route, a chat channel whose
 * descriptor has `features.decidesApprovals`, the terminal client of anyone but the local operator;
 * adapters/registry.ts `approvalDefaultOf`) — they may be anyone the operator let in (a token, a pairing, a
 * guild); `off` otherwise: the local operator's terminal (the person at the keyboard of a token-less API runs the
 * agent as themselves and watches every command) and any chatbot where a request could only time out.
 */
export function defaultApprovalPolicy(decides: boolean): ApprovalPolicy {
  return decides ? 'writes' : 'off';
}

/**
 * The policy in force for a session — the one rule the approval activity (activities/approvals.ts), the chat
 * channels' `/approval` and the REST API's `approval_in_force` all apply: the session's own (`/approval`, PATCH
 * `approval`), else the deployment's `KESOKU_TOOL_APPROVAL`, else the channel's default
 * ({@link defaultApprovalPolicy}).
 * @param sessionPolicy the session's own policy (null or undefined: none set)
 * @param configured `KESOKU_TOOL_APPROVAL` (undefined: not set)
 * @param channelDefault the default of the session's chatbot (adapters/registry.ts `approvalDefaultOf`)
 */
export function approvalPolicyInForce(
  sessionPolicy: ApprovalPolicy | null | undefined,
  configured: ApprovalPolicy | undefined,
  channelDefault: ApprovalPolicy,
): ApprovalPolicy {
  return sessionPolicy ?? configured ?? channelDefault;
}

/** Whether `policy` asks before a call of `toolName`. */
export function policyAsks(policy: ApprovalPolicy, toolName: string): boolean {
  if (policy === 'off') return false;
  if (policy === 'all') return true;
  return WRITING_TOOLS.has(toolName);
}

/**
 * What a call is about, as one line for people and for pattern matching: the command of `run_shell_command`,
 * `<tool> <path>` for the file tools, the tool name otherwise. Arguments may be an object or its JSON text.
 */
export function approvalSubject(toolName: string, rawArgs: unknown): string {
  let args: unknown = rawArgs;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      args = {};
    }
  }
  const field = (key: string): string | null => {
    const v = (args as Record<string, unknown> | null)?.[key];
    return typeof v === 'string' ? v : null;
  };
  if (toolName === 'run_shell_command') return field('command') ?? '';
  const p = field('path');
  return p === null ? toolName : `${toolName} ${p}`;
}

/** Characters a `*` or `?` never matches (shell control operators, substitutions, line breaks). */
const SHELL_SPECIAL = /[;&|<>`$()\r\n]/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * A class of programs `always` never turns into a wildcard, and a wildcard pattern never approves: each of them
 * runs code or commands its arguments (or a file, or the network) choose, so "the same kind of command" would
 * be any command. An `always` on one of them remembers the exact command; an operator's pattern must spell their
 * commands out exactly too. The list cannot be complete: a program not named here is generalised to
 * `<program> *` (docs/security.md "Approvals").
 */
export interface ExactOnlyClass {
  /** What the class is. */
  kind: string;
  /** Why a wildcard over it would approve arbitrary code. */
  reason: string;
  /** Program names (a trailing version, `python3.12`, `pip3`, is ignored). */
  programs: readonly string[];
}

/** Space-separated names as a list (keeps the tables below readable). */
const names = (s: string): readonly string[] => s.split(/\s+/).filter((n) => n !== '');

/** The programs approved only command by command (see {@link ExactOnlyClass}). */
export const EXACT_ONLY_PROGRAMS: readonly ExactOnlyClass[] = [
  {
    kind: 'shell',
    reason: 'a shell runs whatever its arguments say (`bash -c …`, a script file)',
    programs: names(
      'sh bash rbash zsh dash ksh mksh pdksh yash ash fish csh tcsh rc elvish nu xonsh pwsh powershell busybox toybox',
    ),
  },
  {
    kind: 'interpreter',
    reason:
      'an interpreter or scripting tool runs code given inline (`-c`, `-e`, a sed `e` command) or in any file',
    programs: names(
      'python pypy ipython node nodejs deno bun tsx ts-node perl ruby irb php lua luajit tclsh wish expect rscript r julia ghci runghc scala groovy jshell java osascript awk gawk mawk nawk sed gsed ed ex vi vim nvim emacs nano pico micro less more most m4 dc sqlite3 psql mysql mariadb mongosh mongo redis-cli gdb lldb erl iex elixir escript guile racket sbcl clojure kotlin swift',
    ),
  },
  {
    kind: 'launcher',
    reason:
      'a launcher runs the command in its arguments (`env sh -c …`, `xargs rm`, `find -exec`, `timeout 5 bash`)',
    programs: names(
      'env xargs find exec command builtin eval source . time coproc nice nohup setsid timeout stdbuf unbuffer chroot nsenter unshare chrt ionice taskset flock watch watchexec nodemon perf strace ltrace valgrind script parallel systemd-run firejail bwrap fakeroot proot setpriv capsh start-stop-daemon at batch crontab tmux screen entr xdg-open if then else elif while until for do case select function trap',
    ),
  },
  {
    kind: 'privilege',
    reason: 'it runs a command as another user',
    programs: names('sudo doas su runuser pkexec'),
  },
  {
    kind: 'network',
    reason:
      'it sends or fetches anything (`curl -d @secret`, `wget -O script`) or runs commands elsewhere (`ssh host cmd`)',
    programs: names('curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp lftp aria2c http https'),
  },
  {
    kind: 'package or build runner',
    reason:
      'it runs project-defined or downloaded code (`npx <package>`, `npm run <script>`, `make <target>`, `pip install`, build scripts)',
    programs: names(
      'make gmake cmake meson ninja bazel bazelisk just task invoke rake npm npx pnpm pnpx yarn bunx corepack pip pipx uv uvx poetry pdm hatch tox nox conda gem bundle cargo go gradle gradlew mvn ant composer dotnet docker podman helm terraform tofu ansible ansible-playbook dpkg apt apt-get aptitude',
    ),
  },
  {
    kind: 'program with an option that runs another',
    reason:
      'an option makes it run a command (`tar --to-command`, `tar -I`, `rg --pre`, `sort --compress-program`, `zip -TT`, `man -P`, `gcc -wrapper`, a compiler plugin)',
    programs: names('tar zip rg sort man tcpdump gcc cc clang g++ c++ rustc'),
  },
];

/**
 * Programs whose first argument names what they do: `always` keeps it (`git status --short` gives
 * `git status *`) for the sub-commands listed, and remembers any other command of the program exactly.
 * `execOptions` are arguments that make the program run another one: a wildcard never approves a command
 * holding one.
 */
const VERB_PROGRAMS: Readonly<Record<string, { verbs: readonly string[]; execOptions: readonly string[] }>> =
  {
    git: {
      verbs: names(
        'status log diff show branch add commit restore switch checkout stash tag blame rev-parse ls-files describe shortlog reflog merge cherry-pick reset rm mv init fetch pull push remote grep',
      ),
      execOptions: names('--upload-pack --receive-pack --exec -O --open-files-in-pager --extcmd --ext-diff'),
    },
    kubectl: {
      verbs: names('get describe logs top explain api-resources api-versions version'),
      execOptions: names('--exec-command --kubeconfig'),
    },
  };

/** A program name as the shell would find it on PATH: a plain word (no path, quote, escape, glob or `~`). */
const PLAIN_PROGRAM = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

/** `python3.12` → `python`, `pip3` → `pip`, `Rscript` → `rscript` (the table's spelling). */
function tableName(program: string): string {
  return program.toLowerCase().replace(/[\d.]+$/, '');
}

/**
 * How far `always` may generalise a shell command, and whether a wildcard may approve it: `exact` for a command
 * that starts with a variable assignment (`PATH=. ls`), names its program by path, quoted or with an escape
 * (`./x`, `"bash"`), starts with a shell keyword, or runs a program of {@link EXACT_ONLY_PROGRAMS}, a verb
 * program's other sub-commands or one of its exec options; `verb` for `git status …`; `program` otherwise.
 */
export function commandShape(
  command: string,
):
  | { kind: 'exact'; why: string }
  | { kind: 'verb'; program: string; verb: string }
  | { kind: 'program'; program: string } {
  const words = command.trim().split(/\s+/);
  const first = words[0] ?? '';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first))
    return { kind: 'exact', why: 'it sets variables for the command it runs' };
  if (!PLAIN_PROGRAM.test(first))
    return { kind: 'exact', why: 'its program is not a plain name (a path, quotes, an escape or a keyword)' };
  const name = tableName(first);
  const cls = EXACT_ONLY_PROGRAMS.find(
    (c) => c.programs.includes(first.toLowerCase()) || c.programs.includes(name),
  );
  if (cls) return { kind: 'exact', why: `${first}: ${cls.reason}` };
  const verbRule = VERB_PROGRAMS[first];
  if (verbRule) {
    const verb = words[1];
    const args = words.slice(1);
    if (args.some((a) => verbRule.execOptions.some((o) => a === o || a.startsWith(`${o}=`))))
      return { kind: 'exact', why: `${first}: one of its options runs another program` };
    if (verb === undefined || !verbRule.verbs.includes(verb))
      return { kind: 'exact', why: `${first} ${verb ?? ''}: only some of its sub-commands are generalised` };
    return { kind: 'verb', program: first, verb };
  }
  return { kind: 'program', program: first };
}

/**
 * Whether `pattern` approves `subject` (see the module comment for the glob rules). A pattern equal to the
 * subject always approves it; a pattern with a wildcard never approves a command {@link commandShape} calls
 * `exact` (a shell, interpreter, launcher, …), so no pattern — an `always` of old, an operator's
 * `KESOKU_TOOL_AUTO_APPROVE` — turns one of them into "anything".
 */
export function matchesPattern(pattern: string, subject: string): boolean {
  const p = pattern.trim();
  const s = subject.trim();
  if (p === '') return false;
  if (p === s) return true;
  if (/[*?]/.test(p) && commandShape(s).kind === 'exact') return false;
  let source = '';
  let rest = p;
  const optionalTail = rest.endsWith(' *');
  if (optionalTail) rest = rest.slice(0, -2);
  for (const ch of rest) {
    if (ch === '*') source += '[^;&|<>`$()\\r\\n]*';
    else if (ch === '?') source += '[^;&|<>`$()\\r\\n]';
    else source += escapeRegExp(ch);
  }
  if (optionalTail) source += '(?: [^;&|<>`$()\\r\\n]*)?';
  return new RegExp(`^${source}$`, 's').test(s);
}

/** The first of `patterns` that approves `subject`, or null. */
export function matchingPattern(patterns: readonly string[], subject: string): string | null {
  return patterns.find((p) => matchesPattern(p, subject)) ?? null;
}

/**
 * The pattern an `always` answer adds to the session for a call: for a shell command its program (and, for
 * `git` and `kubectl`, the sub-command) followed by ` *` — `git status --short` gives `git status *`, `ls -la`
 * gives `ls *`. A command with shell operators or substitutions, and any command {@link commandShape} calls
 * `exact` (a shell, interpreter, launcher, network or build tool: `bash -c "echo hi"`, `python3 build.py`),
 * gives itself, exactly. For the file tools `<tool> *`.
 */
export function alwaysPatternFor(toolName: string, subject: string): string {
  if (toolName !== 'run_shell_command') return `${toolName} *`;
  const cmd = subject.trim();
  if (cmd === '' || SHELL_SPECIAL.test(cmd) || /[*?]/.test(cmd)) return cmd;
  const shape = commandShape(cmd);
  if (shape.kind === 'exact') return cmd;
  return shape.kind === 'verb' ? `${shape.program} ${shape.verb} *` : `${shape.program} *`;
}

/** How a call stands before anyone is asked. */
export type ApprovalNeed =
  { kind: 'not_required' } | { kind: 'auto_approved'; pattern: string } | { kind: 'required' };

/** Whether a call of `toolName` about `subject` needs a person under `policy` and the approve `patterns`. */
export function approvalNeed(
  policy: ApprovalPolicy,
  patterns: readonly string[],
  toolName: string,
  subject: string,
): ApprovalNeed {
  if (!policyAsks(policy, toolName)) return { kind: 'not_required' };
  const pattern = matchingPattern(patterns, subject);
  return pattern === null ? { kind: 'required' } : { kind: 'auto_approved', pattern };
}

/** The tool result the model reads for a call that was denied or timed out (it was not run). */
export function refusedToolResult(
  toolName: string,
  why: 'denied' | 'timed_out',
  timeoutS: number,
): { content: string; summary: string } {
  const what = toolName === 'run_shell_command' ? 'command' : `${toolName} call`;
  return why === 'denied'
    ? {
        content: `Error: the user denied this ${what}; it was not run. Do not run it again unless they ask for it.`,
        summary: 'denied by the user; not run',
      }
    : {
        content: `Error: nobody approved this ${what} within ${timeoutS} seconds; it was not run.`,
        summary: 'approval timed out; not run',
      };
}

/** A one-line description for the Web UI's current details and prompts, at most `max` characters. */
export function describeCall(toolName: string, subject: string, max = 120): string {
  const text = subject === toolName || subject === '' ? toolName : `${toolName}: ${subject}`;
  const chars = Array.from(text.replace(/\s+/g, ' '));
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}
