// The committed build of the web page (adapters/web/dist, what the API serves) is the build of its sources.
import { describe, expect, it } from 'vitest';
import { checkPage } from '../../adapters/web/build.ts';

describe('adapters/web/dist', () => {
  it('is what `npm run web:build` makes of adapters/web/src', async () => {
    expect(await checkPage(), 'rebuild with npm run web:build and commit adapters/web/dist').toEqual([]);
  }, 120_000);
});
