/**
 * Chat commands typed on Discord: `/stop`, `/compact`, `/title <text>`, `/mode interrupt|queue`, `/locale en|zh`,
 * `/approval off|writes|all`, `/new`, `/status` and `/help`. They act on the session directly (`/stop` never waits
 * in the queue) and answer with a short text; they are never queued as messages. Only a message that is wholly a
 * command counts (adapters/kit/commands.ts): `/stop the nginx service` or `/etc/hosts lacks a line` is an ordinary
 * message.
 *
 * The parsing and the handlers are the channel kit's (adapters/kit/command-dispatch.ts), shared with Google Chat
 * and WeChat; Discord's slash commands (app-commands.ts) run through the same {@link parseCommand} and
 * {@link runCommand}, so a typed command and its slash form do the same thing and answer the same text.
 */
export {
  commandName,
  NEW_CONVERSATION_TEXT,
  parseCommand,
  presentHelp,
  presentSessionError,
  presentStatus,
  runCommand,
  type ChatCommand,
  type CommandSessions,
} from '../kit/command-dispatch.ts';
