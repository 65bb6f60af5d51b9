/**
 * This process's environment without Kesoku's, Postgres's, Temporal's, the providers' and the channels'
 * variables: what a child process of a test starts from, so the machine's settings never leak into it.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(KESOKU_|DATABASE_URL$|TEMPORAL_|DISCORD_|OPENAI_|ANTHROPIC_|GEMINI_|GOOGLE_|OLLAMA_|WECHAT_)/.test(
          k,
        ),
    ),
  );
}
