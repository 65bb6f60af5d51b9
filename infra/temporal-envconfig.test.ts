import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { resolveTemporalSettings } from './temporal-envconfig.ts';

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-envconfig-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** An environment with no config file in reach (HOME and XDG point at an empty directory). */
function bare(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-home-'));
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...extra };
}

describe('Temporal connection settings from Temporal environment configuration', () => {
  it('has no address and the default namespace when nothing is set', () => {
    expect(resolveTemporalSettings(bare())).toEqual({
      address: undefined,
      namespace: 'default',
      profile: 'default',
    });
  });

  it('reads TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE; plaintext without TLS settings', () => {
    const s = resolveTemporalSettings(
      bare({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'kesoku' }),
    );
    expect(s).toMatchObject({ address: 'temporal.internal:7233', namespace: 'kesoku' });
    expect(s.tls).toBeUndefined();
    expect(s.apiKey).toBeUndefined();
  });

  it('an API key turns TLS on (Temporal Cloud) unless TEMPORAL_TLS=false', () => {
    const cloud = resolveTemporalSettings(
      bare({
        TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233',
        TEMPORAL_NAMESPACE: 'acme.a1b2c',
        TEMPORAL_API_KEY: 'k-123',
      }),
    );
    expect(cloud).toMatchObject({ apiKey: 'k-123', tls: true, namespace: 'acme.a1b2c' });
    const plain = resolveTemporalSettings(
      bare({ TEMPORAL_ADDRESS: 'a:7233', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }),
    );
    expect(plain.tls).toBe(false);
  });

  it('reads mTLS files and the server name from TEMPORAL_TLS_* variables', () => {
    const ca = tmpFile('ca.pem', 'CA-PEM');
    const crt = tmpFile('client.pem', 'CRT-PEM');
    const key = tmpFile('client.key', 'KEY-PEM');
    const s = resolveTemporalSettings(
      bare({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
        TEMPORAL_TLS_CLIENT_CERT_PATH: crt,
        TEMPORAL_TLS_CLIENT_KEY_PATH: key,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.example',
      }),
    );
    expect(s.tls).toEqual({
      serverNameOverride: 'temporal.example',
      serverRootCACertificate: Buffer.from('CA-PEM'),
      clientCertPair: { crt: Buffer.from('CRT-PEM'), key: Buffer.from('KEY-PEM') },
    });
  });

  it('reads a profile from the config file; environment variables override it; gRPC headers', () => {
    const file = tmpFile(
      'temporal.toml',
      [
        '[profile.default]',
        'address = "localhost:7233"',
        '[profile.prod]',
        'address = "prod.tmprl.cloud:7233"',
        'namespace = "prod.ns"',
        'api_key = "from-file"',
        '[profile.prod.grpc_meta]',
        'x-team = "kesoku"',
      ].join('\n'),
    );
    expect(resolveTemporalSettings(bare({ TEMPORAL_CONFIG_FILE: file })).address).toBe('localhost:7233');
    const prod = resolveTemporalSettings(
      bare({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'override.ns' }),
    );
    expect(prod).toMatchObject({
      address: 'prod.tmprl.cloud:7233',
      namespace: 'override.ns',
      apiKey: 'from-file',
      tls: true,
      profile: 'prod',
      metadata: { 'x-team': 'kesoku' },
    });
  });

  it('finds the default config file under XDG_CONFIG_HOME/temporalio/temporal.toml', () => {
    const env = bare();
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'temporalio'), { recursive: true });
    fs.writeFileSync(
      path.join(env.XDG_CONFIG_HOME!, 'temporalio', 'temporal.toml'),
      '[profile.default]\naddress = "from-default-file:7233"\n',
    );
    expect(resolveTemporalSettings(env).address).toBe('from-default-file:7233');
  });

  it('a missing profile or an unreadable certificate is a ConfigError naming the profile', () => {
    const file = tmpFile('temporal.toml', '[profile.default]\naddress = "x:1"\n');
    expect(() =>
      resolveTemporalSettings(bare({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nope' })),
    ).toThrow(ConfigError);
    expect(() =>
      resolveTemporalSettings(bare({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'nope' })),
    ).toThrow(/profile "nope"/);
    expect(() =>
      resolveTemporalSettings(
        bare({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nonexistent/ca.pem' }),
      ),
    ).toThrow(ConfigError);
  });
});
