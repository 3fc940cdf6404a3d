import { createRequire } from 'node:module';

declare const __VCONSOLE_VERSION__: string | undefined;

/** The single executable has its version compiled in (scripts/bundle.mjs); the npm package reads package.json. */
export const VERSION: string =
  typeof __VCONSOLE_VERSION__ === 'string'
    ? __VCONSOLE_VERSION__
    : (() => {
        try {
          return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
        } catch {
          return process.env.VCONSOLE_VERSION ?? '0.0.0';
        }
      })();
