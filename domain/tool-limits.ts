/**
 * Time limits of the tool activity and of the commands it runs, kept in one place so that they agree by
 * construction: a command's timeout always ends before its activity's start-to-close timeout.
 */

/** Start-to-close timeout of one tool activity attempt, in seconds. */
export const TOOL_ACTIVITY_TIMEOUT_S = 2 * 60 * 60;

/** Time kept between a command's timeout and its activity's, to kill the command and store its result, in seconds. */
export const TOOL_RESULT_MARGIN_S = 5 * 60;

/** The longest timeout a shell command may have, in seconds; `KESOKU_SHELL_TIMEOUT_S` and `timeout_s` are clamped to it. */
export const MAX_SHELL_TIMEOUT_S = TOOL_ACTIVITY_TIMEOUT_S - TOOL_RESULT_MARGIN_S;

/**
 * Heartbeat timeout of the tool activity, in seconds: a worker that dies mid-command is noticed this fast. Generous
 * next to the heartbeat's interval and the SDK's throttle (at most a quarter of it), so that a worker whose event
 * loop stalls for a while (a large GC, a CPU-starved container, a slow heartbeat call to a distant cluster) does
 * not lose its running command: a timed-out attempt is never re-run, its command is killed.
 */
export const TOOL_HEARTBEAT_TIMEOUT_S = 60;

/** How often a running tool activity heartbeats, from a timer independent of the command's output, in ms. */
export const TOOL_HEARTBEAT_INTERVAL_MS = 1000;

/**
 * Tool calls of one model step that run at the same time; the others of the step wait for one of them to end.
 * One session's step can so hold only this many tool slots however many calls the model asks for.
 */
export const MAX_PARALLEL_TOOL_CALLS = 8;

/** The longest heartbeat throttle a worker uses, in ms: a quarter of the tool heartbeat timeout. */
export const MAX_HEARTBEAT_THROTTLE_MS = (TOOL_HEARTBEAT_TIMEOUT_S * 1000) / 4;
