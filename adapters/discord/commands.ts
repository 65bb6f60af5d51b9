/**
 * Chat commands typed on Discord: `/stop`, `/compact`, `/title <text>`, `/mode interrupt|queue`, `/locale en|zh`,
 * `/approval off|writes|all`. They act on the session directly (`/stop` never waits in the queue) and answer with a
 * short confirmation; they are never queued as messages. Only a message that is wholly a command counts
 * (adapters/kit/commands.ts): `/stop the nginx service` or `/etc/hosts lacks a line` is an ordinary message.
 *
 * The parsing and the handlers are the channel kit's (adapters/kit/command-dispatch.ts), shared with Google Chat
 * and WeChat; this module keeps Discord's names for them.
 */
export {
  parseCommand,
  presentSessionError,
  runCommand,
  type ChatCommand,
  type CommandSessions,
} from '../kit/command-dispatch.ts';
