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

/** Heartbeat timeout of the tool activity, in seconds: a worker that dies mid-command is noticed this fast. */
export const TOOL_HEARTBEAT_TIMEOUT_S = 10;
