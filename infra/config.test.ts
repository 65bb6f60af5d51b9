import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  ollamaBaseUrl,
  PROVIDER_DEFAULT_MODELS,
  requireLlmConfig,
  settings,
  unknownSettings,
} from './config.ts';
import { loadEnvFile } from './env-file.ts';
import { channelVariableNames } from '../adapters/registry.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const cfg = loadConfig({});
    expect(cfg.KESOKU_API_PORT).toBe(3000);
    expect(cfg.KESOKU_CONTINUE_AS_NEW_TURNS).toBe(200);
    expect(cfg.KESOKU_WORKER_CACHED_SESSIONS).toBeUndefined();
  });

  it('reads KESOKU_WORKER_CACHED_SESSIONS as an integer of at least 2', () => {
    expect(loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: '500' }).KESOKU_WORKER_CACHED_SESSIONS).toBe(500);
    expect(loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: ' ' }).KESOKU_WORKER_CACHED_SESSIONS).toBeUndefined();
    for (const bad of ['1', '2.5', 'many']) {
      expect(() => loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ KESOKU_WORKER_CACHED_SESSIONS: bad })).toThrow(
        /KESOKU_WORKER_CACHED_SESSIONS: must be an integer between 2 and 1000000/,
      );
    }
  });

  it('documents every setting: a group and a description each', () => {
    const all = settings();
    expect(all.length).toBeGreaterThan(50);
    for (const s of all) expect(s.description.length, s.name).toBeGreaterThan(10);
  });
});

describe("the model providers' own variables", () => {
  it('OPENAI_API_KEY (with OPENAI_BASE_URL) selects openai with its key, base URL and default model', () => {
    const llm = requireLlmConfig(
      loadConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    );
    expect(llm).toMatchObject({
      provider: 'openai',
      apiKey: 'sk-test',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: PROVIDER_DEFAULT_MODELS.openai,
    });
  });

  it('ANTHROPIC_API_KEY, GEMINI_API_KEY and OLLAMA_HOST each select their provider; OpenAI comes first', () => {
    expect(requireLlmConfig(loadConfig({ ANTHROPIC_API_KEY: 'a' }))).toMatchObject({
      provider: 'anthropic',
      apiKey: 'a',
      model: PROVIDER_DEFAULT_MODELS.anthropic,
    });
    expect(requireLlmConfig(loadConfig({ GEMINI_API_KEY: 'g' }))).toMatchObject({
      provider: 'google',
      apiKey: 'g',
    });
    expect(
      requireLlmConfig(loadConfig({ OLLAMA_HOST: '0.0.0.0', KESOKU_LLM_MODEL: 'qwen3:8b' })),
    ).toMatchObject({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(loadConfig({ OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' }).KESOKU_LLM_PROVIDER).toBe('openai');
  });

  it('explicit KESOKU_LLM_* settings win, and an openai-compatible endpoint never gets a provider key', () => {
    const cfg = loadConfig({
      OPENAI_API_KEY: 'sk-test',
      KESOKU_LLM_PROVIDER: 'openai',
      KESOKU_LLM_MODEL: 'gpt-x',
      KESOKU_LLM_API_KEY: 'explicit',
    });
    expect(cfg).toMatchObject({ KESOKU_LLM_MODEL: 'gpt-x', KESOKU_LLM_API_KEY: 'explicit' });
    const compatible = loadConfig({
      OPENAI_API_KEY: 'sk-test',
      KESOKU_LLM_BASE_URL: 'http://127.0.0.1:8000/v1',
      KESOKU_LLM_MODEL: 'm',
    });
    expect(compatible.KESOKU_LLM_PROVIDER).toBe('openai-compatible');
    expect(compatible.KESOKU_LLM_API_KEY).toBeUndefined();
  });

  it('reads the OLLAMA_HOST forms Ollama accepts', () => {
    expect(ollamaBaseUrl('127.0.0.1:11434')).toBe('http://127.0.0.1:11434/v1');
    expect(ollamaBaseUrl('http://gpu-box:8080')).toBe('http://gpu-box:8080/v1');
    expect(ollamaBaseUrl('localhost')).toBe('http://localhost:11434/v1');
  });

  it('an unconfigured model names what to set and `npx kesoku onboard`', () => {
    expect(() => requireLlmConfig(loadConfig({}))).toThrow(
      'the model is not configured: set KESOKU_LLM_MODEL, KESOKU_LLM_BASE_URL (provider openai-compatible), or run `npx kesoku onboard`',
    );
  });
});

describe('unknown KESOKU_ names', () => {
  it('are reported as likely typos with the closest known name; known and test-only names are not', () => {
    const env = {
      KESOKU_LLM_MODLE: 'x',
      KESOKU_API_PROT: '1',
      KESOKU_SOMETHING_ELSE_ENTIRELY: '1',
      KESOKU_LLM_MODEL: 'm',
      KESOKU_FUZZ_RUNS: '3',
      DISCORD_TOKEN: 't',
      OTHER: 'y',
    };
    expect(unknownSettings(env, channelVariableNames())).toEqual([
      'KESOKU_API_PROT is not a Kesoku setting (did you mean KESOKU_API_PORT?)',
      'KESOKU_LLM_MODLE is not a Kesoku setting (did you mean KESOKU_LLM_MODEL?)',
      'KESOKU_SOMETHING_ELSE_ENTIRELY is not a Kesoku setting',
    ]);
  });
});

describe('the settings file', () => {
  const write = (text: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-env-'));
    const file = path.join(dir, 'settings.env');
    fs.writeFileSync(file, text);
    return file;
  };

  it('fills what the environment lacks; the environment wins', () => {
    const file = write(
      '# comment\nKESOKU_LLM_MODEL=from-file\nexport KESOKU_API_PORT="3101"\nOPENAI_API_KEY=sk-file\n',
    );
    const env: NodeJS.ProcessEnv = { KESOKU_ENV_FILE: file, KESOKU_API_PORT: '3200' };
    const loaded = loadEnvFile(env);
    expect(loaded).toEqual({
      file,
      applied: ['KESOKU_LLM_MODEL', 'OPENAI_API_KEY'],
      overridden: ['KESOKU_API_PORT'],
    });
    expect(env).toMatchObject({ KESOKU_LLM_MODEL: 'from-file', KESOKU_API_PORT: '3200' });
    expect(requireLlmConfig(loadConfig(env))).toMatchObject({ provider: 'openai', model: 'from-file' });
  });

  it('KESOKU_ENV_FILE naming a missing file is refused; empty reads none', () => {
    expect(() => loadEnvFile({ KESOKU_ENV_FILE: '/nonexistent/kesoku.env' })).toThrow(
      'KESOKU_ENV_FILE=/nonexistent/kesoku.env: no such file',
    );
    expect(loadEnvFile({ KESOKU_ENV_FILE: '' })).toEqual({ file: null, applied: [], overridden: [] });
  });
});
